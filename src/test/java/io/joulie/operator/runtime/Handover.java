package io.joulie.operator.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Runs operator code (a tick, a watchdog pass) on threads of its own while the harness thread owns simulated time, with
 * explicit hand-over points instead of sleeps: {@link #start} runs an activity until it is <em>quiet</em>, and the
 * harness goes on only then. An activity is quiet when it finished, when one of its threads waits in {@link #block}
 * for a simulated moment (a slow write, a slow Prometheus), or when its thread is stuck on a lock held by an activity
 * that waits there (a recheck behind a tick's lock). {@link #release} wakes the waiting threads whose moment has come,
 * one at a time in the order of their moments, each until quiet again.
 *
 * <p>So at most one activity runs at a time, and a run is reproducible per seed, except after a stuck activity gets
 * its lock: then both run at once until each is quiet again, in an order the JVM decides (this only happens when a
 * recheck waits for a tick, which is what the harness exists to catch).
 */
final class Handover {
    /** A real-time limit on waiting for quiet: past it the harness is broken (a deadlock), and says where everyone is. */
    private static final long STALL_MILLIS = 120_000;

    /**
     * One run of operator code on a platform thread of its own (taken from a pool: starting a thread per run cost the
     * long runs most of their time), with the threads it started (a tick's writers).
     */
    final class Activity {
        final String name;
        final Object owner;
        private final Supplier<?> body;
        /** The pool's thread running it; null until it starts. */
        private volatile Thread thread;
        private final Set<Long> threads = ConcurrentHashMap.newKeySet();
        private volatile boolean done;
        private Object result;
        private RuntimeException failure;
        private int waiting;
        private boolean collected;
        private boolean stuck;

        private Activity(String name, Object owner, Supplier<?> body) {
            this.name = name;
            this.owner = owner;
            this.body = body;
        }

        private void run() {
            Thread t = Thread.currentThread();
            threads.add(t.threadId());
            thread = t;
            t.setName("faults-" + name);
            current.set(this);
            try {
                result = body.get();
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                current.remove(); // the thread goes back to the pool: the threads it starts next belong to the next run
                t.setName("faults-idle");
                synchronized (lock) {
                    done = true;
                    lock.notifyAll();
                }
            }
        }

        boolean done() {
            return done;
        }

        /** What the body returned; rethrows what it threw (the harness's own bugs must not pass silently). */
        Object result() {
            if (failure != null) {
                throw failure;
            }
            return result;
        }
    }

    private record Waiting(Activity activity, Instant until, long seq) {
    }

    private final Object lock = new Object();
    /** Platform daemon threads for the activities, kept for a minute when idle. */
    private final java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newCachedThreadPool(
            r -> Thread.ofPlatform().daemon().name("faults-idle").unstarted(r));
    private final InheritableThreadLocal<Activity> current = new InheritableThreadLocal<>();
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final List<Activity> activities = new ArrayList<>();
    private final List<Waiting> waiting = new ArrayList<>();
    private final Set<Waiting> released = ConcurrentHashMap.newKeySet();
    private final Set<Waiting> killed = ConcurrentHashMap.newKeySet();
    private long seq;
    private long stuckSeen;

    /** Thrown in a thread whose process was killed while it waited (an operator restart): its request never lands. */
    static final class Killed extends RuntimeException {
        Killed() {
            super("the process was killed", null, false, false);
        }
    }

    /** The activity of the calling thread, or null on the harness thread. */
    Activity current() {
        return current.get();
    }

    /** Starts {@code body} on a thread of its own and returns once it is quiet. */
    Activity start(String name, Object owner, Supplier<?> body) {
        Activity a = new Activity(name, owner, body);
        synchronized (lock) {
            activities.add(a);
        }
        workers.execute(a::run);
        awaitQuiet();
        return a;
    }

    /**
     * Called by operator code in the fake API server or Prometheus: the calling thread waits until the harness's clock
     * has reached {@code until}. On the harness thread (no activity) it returns at once: the harness's own calls take no time.
     *
     * @throws Killed when the calling thread's process was killed meanwhile
     */
    void block(Instant until) {
        Activity a = current.get();
        if (a == null) {
            return;
        }
        a.threads.add(Thread.currentThread().threadId());
        synchronized (lock) {
            Waiting w = new Waiting(a, until, seq++);
            waiting.add(w);
            a.waiting++;
            lock.notifyAll();
            while (!released.contains(w)) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while blocked", e);
                }
            }
            released.remove(w);
            if (killed.remove(w)) {
                throw new Killed();
            }
        }
    }

    /** Wakes the waiting threads whose moment is at or before {@code now}, one at a time in order, each until quiet. */
    void release(Instant now) {
        while (true) {
            Waiting next;
            synchronized (lock) {
                next = waiting.stream().filter(w -> !w.until().isAfter(now))
                        .min(Comparator.comparing(Waiting::until).thenComparingLong(Waiting::seq)).orElse(null);
                if (next == null) {
                    return;
                }
                waiting.remove(next);
                next.activity().waiting--; // counted as running from now on, before the thread itself wakes up
                released.add(next);
                lock.notifyAll();
            }
            awaitQuiet();
        }
    }

    /** Kills the activities {@code owned} selects (a process that died): their waiting threads throw {@link Killed}. */
    void kill(Predicate<Object> owned) {
        synchronized (lock) {
            for (Waiting w : List.copyOf(waiting)) {
                if (owned.test(w.activity().owner)) {
                    waiting.remove(w);
                    w.activity().waiting--;
                    killed.add(w);
                    released.add(w);
                }
            }
            lock.notifyAll();
        }
        awaitQuiet();
    }

    /** The activities that finished since the last call, in the order they were started. */
    List<Activity> finished() {
        synchronized (lock) {
            List<Activity> out = new ArrayList<>();
            activities.removeIf(a -> {
                if (a.done && !a.collected) {
                    a.collected = true;
                    out.add(a);
                    return true;
                }
                return false;
            });
            return out;
        }
    }

    /** How many activities were found stuck on a lock held by a waiting one (a recheck behind a tick). */
    long stuckSeen() {
        synchronized (lock) {
            return stuckSeen;
        }
    }

    /** Waits until every activity is quiet (finished, waiting in {@link #block}, or stuck behind one that waits). */
    void awaitQuiet() {
        long deadline = System.currentTimeMillis() + STALL_MILLIS;
        synchronized (lock) {
            while (true) {
                boolean quiet = true;
                for (Activity a : activities) {
                    if (!a.done && a.waiting == 0 && !stuck(a)) {
                        quiet = false;
                        break;
                    }
                }
                if (quiet) {
                    return;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the operator's threads made no progress for " + STALL_MILLIS + " ms: " + dump());
                }
                try {
                    lock.wait(1); // thread states change without a notification: look again shortly
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
        }
    }

    /** Blocked on a monitor, or parked on a lock, whose owner is a thread of an activity that waits in {@link #block}. */
    private boolean stuck(Activity a) {
        Thread t = a.thread;
        if (t == null) {
            return false; // not started yet: it runs
        }
        ThreadInfo info = mx.getThreadInfo(t.threadId());
        if (info == null || (info.getThreadState() != Thread.State.BLOCKED && info.getThreadState() != Thread.State.WAITING)) {
            return false;
        }
        long owner = info.getLockOwnerId();
        if (owner < 0 || a.threads.contains(owner)) {
            return false;
        }
        for (Activity b : activities) {
            if (b != a && b.waiting > 0 && b.threads.contains(owner)) {
                if (!a.stuck) {
                    a.stuck = true;
                    stuckSeen++;
                }
                return true;
            }
        }
        return false;
    }

    private String dump() {
        StringBuilder s = new StringBuilder();
        for (Activity a : activities) {
            s.append("\n").append(a.name).append(" done=").append(a.done).append(" waiting=").append(a.waiting);
            for (StackTraceElement e : a.thread == null ? new StackTraceElement[0] : a.thread.getStackTrace()) {
                s.append("\n    at ").append(e);
            }
        }
        return s.toString();
    }
}
