package io.joulie.operator.runtime;

import io.joulie.operator.cluster.ClusterView;
import io.joulie.operator.cluster.CrdOwnership;
import io.joulie.operator.metrics.TickResult;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Whether this replica plans now: only the holder of the Lease, only while every {@code joulie.io} CRD installed is this
 * project's ({@link CrdOwnership}: another project's NodeHardware would be misread), and only once every watch has
 * delivered its initial list and is watching (planning on a partial view could downgrade busy nodes).
 */
@ApplicationScoped
public class TickGate {
    private static final Logger LOG = Logger.getLogger(TickGate.class);

    private final BooleanSupplier leading;
    private final Supplier<List<String>> unsynced;
    private final Supplier<List<String>> contractUnsynced;
    private final Consumer<Runnable> openings;
    private final BooleanSupplier foreignCrd;

    @Inject
    public TickGate(LeaderElection leader, ClusterView view, CrdOwnership crds) {
        this(leader::isLeader, view::unsynced, view::contractUnsynced, listener -> {
            view.onInitialSync(listener);
            leader.onLeading(listener);
        }, () -> crds.foreign().isPresent());
    }

    TickGate(BooleanSupplier leading, Supplier<List<String>> unsynced, Consumer<Runnable> openings) {
        this(leading, unsynced, unsynced, openings, () -> false);
    }

    TickGate(BooleanSupplier leading, Supplier<List<String>> unsynced, Consumer<Runnable> openings, BooleanSupplier foreignCrd) {
        this(leading, unsynced, unsynced, openings, foreignCrd);
    }

    /**
     * @param openings registers a listener for the moments the gate may open: the watches' initial sync, and each time
     *                 this replica becomes the leader
     */
    /**
     * @param contractUnsynced the watches a recheck needs that have not synced or are not watching (Nodes, Pods,
     *                         NodePowerProfiles)
     */
    TickGate(BooleanSupplier leading, Supplier<List<String>> unsynced, Supplier<List<String>> contractUnsynced,
             Consumer<Runnable> openings, BooleanSupplier foreignCrd) {
        this.leading = leading;
        this.unsynced = unsynced;
        this.contractUnsynced = contractUnsynced;
        this.openings = openings;
        this.foreignCrd = foreignCrd;
    }

    /**
     * Runs {@code listener} whenever the gate may have opened (on a watch or election thread, or at once if that has
     * happened already): the watches' initial sync, and each time this replica becomes the leader.
     */
    public void onOpening(Runnable listener) {
        openings.accept(listener);
    }

    /** Empty when the tick may plan, else why not ({@link TickResult#STANDBY} or {@link TickResult#UNSYNCED}). */
    public Optional<TickResult> closed() {
        if (!leading.getAsBoolean()) {
            return Optional.of(TickResult.STANDBY);
        }
        if (foreignCrd.getAsBoolean()) {
            // the Joulie status and the log name the CRD (CrdOwnership); its objects are not read as Joulie's
            return Optional.of(TickResult.FOREIGN_CRD);
        }
        List<String> notSynced = unsynced.get();
        if (!notSynced.isEmpty()) {
            LOG.infof("Watches have not synced yet (%s); not planning on an incomplete view", String.join(", ", notSynced));
            return Optional.of(TickResult.UNSYNCED);
        }
        return Optional.empty();
    }

    /**
     * Empty when a recheck may act, else why not: as {@link #closed()}, except that only the watches the guard's step
     * reads must be synced (Nodes, Pods, NodePowerProfiles): a NodeHardware or Joulie watch reconnecting does not hold
     * a rescue back.
     */
    public Optional<TickResult> closedForRecheck() {
        if (!leading.getAsBoolean()) {
            return Optional.of(TickResult.STANDBY);
        }
        if (foreignCrd.getAsBoolean()) {
            return Optional.of(TickResult.FOREIGN_CRD);
        }
        return contractUnsynced.get().isEmpty() ? Optional.empty() : Optional.of(TickResult.UNSYNCED);
    }

    /** Whether this replica still holds the Lease (asked again before each write). */
    public boolean leading() {
        return leading.getAsBoolean();
    }
}
