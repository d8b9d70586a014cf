package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The monitoring controller's outcome, handed to the {@code Joulie} reconciler, which owns the status: one
 * writer per resource, so the two controllers never race on the conditions list.
 */
@ApplicationScoped
public class MonitoringState {
    private volatile Condition condition;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    void publish(Condition c) {
        Condition previous = condition;
        if (previous == null || !Objects.equals(previous.getStatus(), c.getStatus())
                || !Objects.equals(previous.getReason(), c.getReason()) || !Objects.equals(previous.getMessage(), c.getMessage())) {
            condition = c;
            listeners.forEach(Runnable::run);
        }
    }

    /** The MonitoringReady condition, once the monitoring controller has run. */
    public Optional<Condition> condition() {
        return Optional.ofNullable(condition);
    }

    public void onChange(Runnable listener) {
        listeners.add(listener);
    }
}
