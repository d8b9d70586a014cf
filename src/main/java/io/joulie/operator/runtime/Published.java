package io.joulie.operator.runtime;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiPredicate;

/**
 * A value one part of the operator publishes and another reacts to: listeners hear only of values that
 * differ from the previous one (by {@code same}), so publishing the same outcome every tick costs nothing.
 */
public final class Published<T> {
    private final BiPredicate<T, T> same;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile T value;

    public Published(BiPredicate<T, T> same) {
        this.same = same;
    }

    public void publish(T next) {
        T previous = value;
        if (previous == null || !same.test(previous, next)) {
            value = next;
            listeners.forEach(Runnable::run);
        }
    }

    public Optional<T> latest() {
        return Optional.ofNullable(value);
    }

    public void onChange(Runnable listener) {
        listeners.add(listener);
    }
}
