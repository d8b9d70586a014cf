package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Lists every Pod in pages and then watches from the list's resource version, feeding {@link PodFacts}: each Pod is
 * reduced to what planning reads as it arrives, and nothing else of it is kept. When the watch ends for good (the API
 * server no longer has the history it would resume from: 410 Gone), the Pods are listed again and those the new list
 * did not see are dropped.
 *
 * <p>This replaces a fabric8 informer for Pods (decision 71): an informer keeps every key of a list in a second set
 * while it runs, then rebuilds every kept Pod at once to find deletions and sends an add event per Pod; at 100,000 Pods
 * those copies, not the Pods kept, decided how much memory the operator needed.
 */
final class PodWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PodWatch.class);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LAST_RETRY = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final PodFacts facts;
    private final long page;
    private final CompletableFuture<Void> synced = new CompletableFuture<>();
    private final Semaphore ended = new Semaphore(0);
    private volatile boolean watching;
    private volatile boolean stopped;
    private volatile Watch watch;
    private Thread thread;

    PodWatch(KubernetesClient client, PodFacts facts, long page) {
        this.client = client;
        this.facts = facts;
        this.page = page;
    }

    /** Starts listing; the future completes once the first list is kept and the watch is open. */
    synchronized CompletableFuture<Void> start() {
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("joulie-pod-watch").start(this::run);
        }
        return synced;
    }

    boolean synced() {
        return synced.isDone();
    }

    boolean watching() {
        return watching;
    }

    /** The watch open now (tests end it to see the next list). */
    Watch watchForTests() {
        return watch;
    }

    private void run() {
        int listing = 0;
        Duration retry = FIRST_RETRY;
        while (!stopped) {
            try {
                listing++;
                String resourceVersion = list(listing);
                facts.sweep(listing);
                watch = client.pods().inAnyNamespace().watch(new ListOptionsBuilder().withResourceVersion(resourceVersion)
                        .withAllowWatchBookmarks(true).build(), new Follower(listing));
                watching = true;
                synced.complete(null);
                retry = FIRST_RETRY;
                ended.acquire();
                watching = false;
                watch = null;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                watching = false;
                if (stopped) {
                    return;
                }
                LOG.warnf("Listing or watching Pods failed (%s); retrying in %s", e.toString(), retry);
                try {
                    Thread.sleep(retry);
                } catch (InterruptedException interrupted) {
                    return;
                }
                retry = retry.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : retry.multipliedBy(2);
            }
        }
    }

    /** One paged list of every Pod into the facts; the resource version to watch from. */
    private String list(int listing) {
        String next = null;
        String resourceVersion;
        do {
            PodList list = client.pods().inAnyNamespace().list(new ListOptionsBuilder().withLimit(page).withContinue(next).build());
            list.getItems().forEach(p -> facts.put(p, listing));
            resourceVersion = list.getMetadata().getResourceVersion();
            next = list.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
        return resourceVersion;
    }

    /** Applies the watch's events; its end hands over to the next list. */
    private final class Follower implements Watcher<Pod> {
        private final int listing;

        Follower(int listing) {
            this.listing = listing;
        }

        @Override
        public void eventReceived(Action action, Pod pod) {
            switch (action) {
                case ADDED, MODIFIED -> facts.put(pod, listing);
                case DELETED -> facts.remove(pod);
                default -> { } // BOOKMARK: the client resumes from it by itself; ERROR ends the watch
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            LOG.infof("The Pod watch ended (%s); listing the Pods again", cause.getMessage());
            ended.release();
        }

        @Override
        public void onClose() {
            ended.release();
        }
    }

    @Override
    public synchronized void close() {
        stopped = true;
        Watch w = watch;
        if (w != null) {
            w.close();
        }
        if (thread != null) {
            thread.interrupt();
        }
    }
}
