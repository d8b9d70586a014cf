package io.joulie.sim;

import io.joulie.planner.ParkingPolicy.Power;
import io.joulie.planner.PodClass;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Parking in the twin (docs/simulation.md, "Parking"): power states, their power, the boot latency, and off by default. */
class ParkingTest {
    /**
     * Three 16-core nodes of the default model (80 W idle); two 8-core jobs of 5,000 s from t = 0 take node-0001 and
     * node-0002, node-0003 stays empty and is parked at the tick of t = 60; a 16-core job arrives at t = 1,000 and fits
     * no node that is on.
     */
    private static final List<JobSpec> JOBS = List.of(JobSpec.of(0, 0, 8, 8 * 5000, 1, null), JobSpec.of(1, 0, 8, 8 * 5000, 1, null),
            JobSpec.of(2, 1000, 16, 16 * 100, 1, null));

    private static SimConfig config(boolean parking) {
        return SimConfig.of(Map.of("cluster.nodes", "3", "parking.enabled", String.valueOf(parking), "parking.idleSeconds", "60",
                "parking.warmFraction", "0", "parking.bootSeconds", "300", "parking.offWatts", "5"));
    }

    /** Baseline A, recording node-0003's power state and power at chosen times. */
    private static final class Recorder implements ControlPlane {
        final NoJoulie a = new NoJoulie();
        final Map<Double, Power> state = new TreeMap<>();
        final Map<Double, Double> watts = new TreeMap<>();
        final Map<Double, Integer> jobs = new TreeMap<>();

        @Override
        public boolean profilesConstrainPlacement() {
            return false;
        }

        @Override
        public void start(SimCluster cluster) {
            a.start(cluster);
        }

        @Override
        public void beforeStep(double t, SimCluster cluster) {
            if (t == 0 || t == 500 || t == 1100 || t == 1320 || t == 1321) {
                SimNode n = cluster.node("node-0003");
                state.put(t, n.power);
                watts.put(t, n.powerWatts());
                jobs.put(t, n.running.size());
            }
        }
    }

    @Test
    void anOffNodeDrawsOffWattsABootingNodeIdleAndAJobThatFitsNowhereRunsAfterTheBoot() {
        Recorder r = new Recorder();
        RunResult parked = new Simulation(config(true), JOBS, Baseline.A, r).run();
        double idle = r.watts.get(0.0);
        assertThat(idle).as("the default model's idle power").isCloseTo(80, within(1e-9));
        assertThat(r.state).containsEntry(0.0, Power.ON).containsEntry(500.0, Power.PARKED).containsEntry(1100.0, Power.BOOTING)
                .containsEntry(1320.0, Power.BOOTING).containsEntry(1321.0, Power.ON);
        assertThat(r.watts.get(500.0)).as("off: parking.offWatts").isEqualTo(5.0);
        assertThat(r.watts.get(1100.0)).as("booting: idle").isCloseTo(idle, within(1e-9));
        assertThat(r.jobs.get(1100.0)).as("a booting node takes no pod").isZero();
        assertThat(r.jobs.get(1321.0)).as("the waiting job starts once the boot is over").isEqualTo(1);
        // it waited from t = 1,000 until the tick of t = 1,020 woke node-0003, which booted for 300 s, then ran 100 s
        assertThat(parked.completionTimes().get(PodClass.UNCONSTRAINED)).contains(new double[] {420.0}, within(1e-6));

        RunResult on = new Simulation(config(false), JOBS, Baseline.A, new NoJoulie()).run();
        assertThat(on.completionTimes().get(PodClass.UNCONSTRAINED)).contains(new double[] {100.0}, within(1e-6));
        assertThat(parked.makespanSeconds()).isEqualTo(on.makespanSeconds()).isCloseTo(5000, within(1e-6));
        // node-0003's energy is all that differs (the 16-core job's 100 s cancel out). Without parking: idle for
        // 1,000 + 3,900 s. With: idle 0–60, off 60–1,020, booting (idle) 1,020–1,320, empty again from 1,420 and
        // parked at the tick of 1,500, off until 5,000.
        double withoutJ = idle * (1000 + 3900);
        double withJ = idle * 60 + 5 * 960 + idle * 300 + idle * 80 + 5 * 3500;
        assertThat((parked.energyKWh() - on.energyKWh()) * 3.6e6).isCloseTo(withJ - withoutJ, within(1e-3));
        // parked at 60 and at 1,500, woken at 1,020; the run reports it (summary.csv, targets.csv)
        assertThat(parked.parking().parks()).isEqualTo(2);
        assertThat(parked.parking().wakes()).isEqualTo(1);
        assertThat(parked.parking().meanParked()).isBetween(0.5, 1.0);
        assertThat(on.parking()).isEqualTo(RunResult.Parking.NONE);
    }

    @Test
    void theWakeEnergyIsAddedOncePerWake() {
        Map<String, String> o = new HashMap<>(Map.of("cluster.nodes", "3", "parking.enabled", "true", "parking.idleSeconds", "60",
                "parking.warmFraction", "0"));
        RunResult without = new Simulation(SimConfig.of(o), JOBS, Baseline.A, new NoJoulie()).run();
        o.put("parking.wakeJoules", "36000");
        RunResult with = new Simulation(SimConfig.of(o), JOBS, Baseline.A, new NoJoulie()).run();
        assertThat(with.energyKWh() - without.energyKWh()).as("one wake of 0.01 kWh").isCloseTo(0.01, within(1e-9));
    }

    @Test
    void parkingOffOrParkingNothingReproducesARunExactly() {
        Map<String, String> shortRun = Map.of("workload.jobs", "120", "planner.queuePerfPerHpNode", "8");
        SimConfig base = SimConfig.of(shortRun);
        assertThat(base.parking().enabled()).as("off by default").isFalse();
        Map<String, String> never = new HashMap<>(shortRun);
        never.put("parking.enabled", "true");
        never.put("parking.idleSeconds", "100000000");
        for (Baseline b : List.of(Baseline.A, Baseline.D)) {
            RunResult off = Simulation.standalone(base, Workload.of(base.workload()), b).run();
            RunResult idle = Simulation.standalone(SimConfig.of(never), Workload.of(base.workload()), b).run();
            assertThat(idle.energyKWh()).as(b + ": parking that parks nothing changes nothing").isEqualTo(off.energyKWh());
            assertThat(idle.finishTimes()).isEqualTo(off.finishTimes());
        }
    }

    @Test
    void theSchedulerSkipsParkedAndBootingNodes() {
        SimConfig c = SimConfig.of(Map.of("cluster.nodes", "2"));
        List<SimNode> nodes = List.of(new SimNode(0, "a", c.nodeTypes().getFirst(), 0, Simulation.EPOCH),
                new SimNode(1, "b", c.nodeTypes().getFirst(), 0, Simulation.EPOCH));
        nodes.get(0).power = Power.PARKED;
        nodes.get(1).power = Power.BOOTING;
        Scheduler s = new Scheduler(nodes, c.nodeTypes(), true);
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).isEqualTo(-1);
        assertThat(s.maxFree(PodClass.UNCONSTRAINED)).isZero();
        nodes.get(1).power = Power.ON;
        s.add(nodes.get(1));
        assertThat(s.pick(PodClass.UNCONSTRAINED, 1)).isEqualTo(1);
    }
}
