package io.joulie.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.joulie.operator.cluster.Leadership;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.config.SettingsParser;
import io.joulie.operator.metrics.PlannerMetrics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Only the holder of the Lease plans. Leadership is re-contested after it is lost (another replica took
 * over, or renewing failed), so a replica that lost it becomes a candidate again instead of idling.
 */
@ApplicationScoped
public class LeaderElection implements Leadership {
    private static final Logger LOG = Logger.getLogger(LeaderElection.class);

    private final KubernetesClient client;
    private final OperatorConfig.LeaderElection config;
    private final SettingsParser.LeaseTimings timings;
    private final PlannerMetrics metrics;
    private final Clock clock;
    private final String identity;
    private final String namespace;
    private final AtomicReference<Instant> leaderSince = new AtomicReference<>();
    private volatile boolean stopping;
    private volatile CompletableFuture<?> running;
    private final java.util.List<Runnable> leadingListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    public LeaderElection(KubernetesClient client, OperatorConfig config, OperatorSettings settings, PlannerMetrics metrics,
                          Clock clock) {
        this.timings = settings.lease();
        this.client = client;
        this.config = config.leaderElection();
        this.metrics = metrics;
        this.clock = clock;
        this.identity = config.podName().orElse("joulie-operator") + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.namespace = this.config.namespace().or(config::podNamespace).orElse("joulie-system");
    }

    void start(@Observes StartupEvent ev) {
        if (!config.enabled()) {
            LOG.info("Leader election disabled: this replica plans");
            becameLeader();
            return;
        }
        campaign();
    }

    void stop(@Observes ShutdownEvent ev) {
        stopping = true;
        CompletableFuture<?> f = running;
        if (f != null) {
            f.cancel(true);
        }
    }

    private void campaign() {
        if (stopping) {
            return;
        }
        LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("joulie-operator")
                .withLock(new LeaseLock(namespace, config.leaseName(), identity))
                .withLeaseDuration(timings.leaseDuration())
                .withRenewDeadline(timings.renewDeadline())
                .withRetryPeriod(timings.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::becameLeader, this::lostLeadership,
                        leader -> LOG.infof("Planner leader is now %s", leader)))
                .build()).build();
        CompletableFuture<?> f = elector.start();
        running = f;
        long pause = timings.retryPeriod().toMillis();
        f.whenCompleteAsync((ok, err) -> {
            if (!stopping) {
                LOG.infof("Leader election round ended%s; contesting the Lease again",
                        err == null ? "" : " (" + err + ")");
                campaign();
            }
        }, CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS));
    }

    private void becameLeader() {
        leaderSince.set(clock.instant());
        metrics.leader(true);
        LOG.infof("%s is the planner leader (Lease %s/%s)", identity, namespace, config.leaseName());
        leadingListeners.forEach(Runnable::run);
    }

    /**
     * Runs {@code listener} every time this replica becomes the leader (and at once if it is the leader now). It runs on
     * the elector's thread: it must hand long work to another thread.
     */
    public void onLeading(Runnable listener) {
        leadingListeners.add(listener);
        if (isLeader()) {
            listener.run();
        }
    }

    private void lostLeadership() {
        leaderSince.set(null);
        metrics.leader(false);
        LOG.infof("%s stopped leading", identity);
    }

    public boolean isLeader() {
        return leaderSince.get() != null;
    }

    @Override
    public boolean held() {
        return isLeader();
    }

    /** When this replica became leader, if it is. */
    public Optional<Instant> leaderSince() {
        return Optional.ofNullable(leaderSince.get());
    }
}
