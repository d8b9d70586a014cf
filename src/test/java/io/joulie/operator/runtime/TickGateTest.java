package io.joulie.operator.runtime;

import io.joulie.operator.metrics.TickResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class TickGateTest {

    @Test
    void onlyTheLeaseHolderWithSyncedWatchesPlans() {
        AtomicBoolean leading = new AtomicBoolean(false);
        List<String> unsynced = new java.util.ArrayList<>(List.of("Pod (listing)"));
        List<Runnable> listeners = new java.util.ArrayList<>();
        TickGate gate = new TickGate(leading::get, () -> List.copyOf(unsynced), listeners::add);

        assertThat(gate.closed()).as("standby comes first, whatever the watches").contains(TickResult.STANDBY);
        leading.set(true);
        assertThat(gate.closed()).contains(TickResult.UNSYNCED);
        unsynced.clear();
        assertThat(gate.closed()).isEmpty();
        assertThat(gate.leading()).isTrue();
        leading.set(false);
        assertThat(gate.leading()).isFalse();
        assertThat(gate.closed()).contains(TickResult.STANDBY);

        Runnable tick = () -> { };
        gate.onOpening(tick);
        assertThat(listeners).containsExactly(tick);
    }

    @Test
    void nothingIsPlannedWhileAJoulieCrdIsAnotherProjects() {
        AtomicBoolean foreign = new AtomicBoolean(true);
        TickGate gate = new TickGate(() -> true, List::of, listener -> { }, foreign::get);

        assertThat(gate.closed()).contains(TickResult.FOREIGN_CRD);
        foreign.set(false);
        assertThat(gate.closed()).isEmpty();
    }
}
