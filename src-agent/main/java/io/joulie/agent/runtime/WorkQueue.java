package io.joulie.agent.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Keys waiting for one worker, each due at a time: added by event handlers on any thread, taken in due order
 * (the order of adding among keys due at once). Coalesced: a key already waiting is not added twice; adding it
 * again with an earlier due time moves it earlier. {@link #take()} sleeps until the first key is due or a key is
 * added, never polls. Time is a monotonic nanosecond reading ({@code System::nanoTime}; a clock the test moves).
 */
final class WorkQueue<K> {
    private record Entry<K>(K key, long dueNanos, long sequence) {
    }

    private final LongSupplier nanoTime;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<K, Entry<K>> waiting = new HashMap<>();
    private final TreeSet<Entry<K>> order = new TreeSet<>((a, b) -> a.dueNanos() != b.dueNanos()
            ? Long.compare(a.dueNanos() - b.dueNanos(), 0) : Long.compare(a.sequence(), b.sequence()));
    private long sequence;

    WorkQueue(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Adds {@code key}, due now. */
    void add(K key) {
        addAfter(key, Duration.ZERO);
    }

    /** Adds {@code key}, due {@code delay} from now; a key already waiting keeps the earlier of the two due times. */
    void addAfter(K key, Duration delay) {
        lock.lock();
        try {
            long due = nanoTime.getAsLong() + delay.toNanos();
            Entry<K> present = waiting.get(key);
            if (present != null) {
                if (present.dueNanos() - due <= 0) {
                    return;
                }
                order.remove(present);
            }
            Entry<K> entry = new Entry<>(key, due, sequence++);
            waiting.put(key, entry);
            order.add(entry);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code key} out if it is waiting (its work is being done anyway). */
    void remove(K key) {
        lock.lock();
        try {
            Entry<K> present = waiting.remove(key);
            if (present != null) {
                order.remove(present);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The first key that is due, taken out; empty if none is due now. */
    Optional<K> poll() {
        lock.lock();
        try {
            return Optional.ofNullable(takeDue());
        } finally {
            lock.unlock();
        }
    }

    /** Waits until a key is due and takes it out. */
    K take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                K due = takeDue();
                if (due != null) {
                    return due;
                }
                if (order.isEmpty()) {
                    changed.await();
                } else {
                    changed.awaitNanos(order.first().dueNanos() - nanoTime.getAsLong());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** How long until the first key is due (zero or negative: due), empty when nothing waits. */
    Optional<Duration> untilNext() {
        lock.lock();
        try {
            return order.isEmpty() ? Optional.empty()
                    : Optional.of(Duration.ofNanos(order.first().dueNanos() - nanoTime.getAsLong()));
        } finally {
            lock.unlock();
        }
    }

    private K takeDue() {
        if (order.isEmpty() || order.first().dueNanos() - nanoTime.getAsLong() > 0) {
            return null;
        }
        Entry<K> first = order.pollFirst();
        waiting.remove(first.key());
        return first.key();
    }
}
