package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real agent under the real operator, with faults, judged on the hardware (issue 21, item 6; docs/reliability.md
 * "The real agent under the real operator"). Three managed kwok nodes each get the packaged agent in node mode on a fake
 * sysfs tree of their own (two 400 W packages); the packaged operator plans them at the production settle time (5 s)
 * every 15 s. A monitor reads, every 100 ms, each node's label (from a watch) and then the limits the agent wrote to its
 * packages (the files), and the Pods of the scenario's namespace, and checks:
 * <ol>
 * <li><b>hardware</b>: no running performance-only Pod stays on a node whose packages are below the performance cap for
 *     longer than {@link #BOUND} while the node's agent runs (counted from the Pod's first sighting there, or from the
 *     agent's restart);</li>
 * <li><b>closed loop</b>: no node is labelled {@code performance} while its packages are below the performance cap for
 *     longer than {@link #BOUND} while its agent runs (a NodePowerProfile deleted by hand has the agent put back the
 *     limits it found, below the performance cap here, until the operator's new profile reaches it);</li>
 * </ol>
 * First, deterministically, the fail-closed case (the closed loop of a node whose agent is down): an eco node's agent
 * is killed (SIGKILL: the eco limits stay on the packages), its NodePowerProfile is deleted by hand (the agent's answer with it) and the plan raises every node; the
 * node must not be labelled performance before its next agent has written the performance cap. Then a seeded random
 * stream ({@code -De2e.faults.seed}, default 1) of: performance-only Pods bound past the scheduler ({@code spec.nodeName})
 * onto the agents' nodes, performance-only Pods through the scheduler, Pods deleted, agents killed and started again
 * seconds later, NodePowerProfiles deleted by hand, and plan changes. Operator failover is {@link FailoverIT}'s.
 */
@Order(10)
class AgentUnderFaultsIT extends ClusterScenario {
    static final String NS = "e2e-agent-faults";
    static final List<String> NODES = RealCluster.MANAGED.subList(3, 6);
    static final int PACKAGES = 2;
    static final long PACKAGE_MAX_WATTS = 400;
    /** The node cap at performance (100 % of two 400 W packages). */
    static final double PERFORMANCE_WATTS = PACKAGES * PACKAGE_MAX_WATTS;
    /**
     * A performance-only Pod on a node below the performance cap, while its agent runs: at most this long. The rescue's
     * write (5 s, SlowTickIT's bound) plus the agent's watch delivery and write, plus a restarted agent's start-up (its
     * JVM, its first list of the NodePowerProfile) on a loaded two-core machine.
     */
    static final Duration BOUND = Duration.ofSeconds(20);
    static final Duration RANDOM_PHASE = Duration.ofSeconds(150);

    enum Fault {
        POD_BOUND_DIRECTLY, POD_SCHEDULED, POD_DELETED, AGENT_KILLED, PROFILE_DELETED, PLAN_CHANGED
    }

    static final Map<String, FakeHost> hosts = new LinkedHashMap<>();
    static final Map<String, JavaApp> agents = new ConcurrentHashMap<>();
    static final Map<String, Map<String, String>> environments = new HashMap<>();
    /** Per node, since when its current agent process runs (absent while there is none). */
    static final Map<String, Long> agentUpSince = new ConcurrentHashMap<>();
    static final AtomicLong agentStarts = new AtomicLong();
    static ScheduledExecutorService monitor;
    static SharedIndexInformer<Node> nodeInformer;
    static SharedIndexInformer<Pod> podInformer;
    static final List<String> violations = new CopyOnWriteArrayList<>();
    /** Episodes of a running performance-only Pod below the performance cap, by pod@node: since when (monitor's clock). */
    static final Map<String, Long> episodes = new ConcurrentHashMap<>();
    static final AtomicLong episodeCount = new AtomicLong();
    static final AtomicLong longestMillis = new AtomicLong();
    /** Per node, since when it is labelled performance below the performance cap while its agent runs. */
    static final Map<String, Long> openLoop = new ConcurrentHashMap<>();
    static final AtomicLong checks = new AtomicLong();
    static final AtomicLong longestLoopMillis = new AtomicLong();

    @BeforeAll
    static void start() throws Exception {
        cluster.namespace(NS);
        for (String node : NODES) {
            FakeHost host = FakeHost.intelNode(Files.createDirectories(cluster.controlPlane.workDir().resolve("faults-host-" + node)),
                    PACKAGES, PACKAGE_MAX_WATTS);
            hosts.put(node, host);
            environments.put(node, new HashMap<>(host.agentEnvironment()));
            startAgent(node);
        }
        nodeInformer = cluster.admin.nodes().withLabel("joulie.io/managed", "true").inform();
        podInformer = cluster.admin.pods().inNamespace(NS).inform();
        monitor = Executors.newSingleThreadScheduledExecutor();
        monitor.scheduleWithFixedDelay(AgentUnderFaultsIT::check, 100, 100, TimeUnit.MILLISECONDS);
    }

    @AfterAll
    static void stop() {
        if (monitor != null) {
            monitor.shutdownNow();
        }
        if (nodeInformer != null) {
            nodeInformer.close();
        }
        if (podInformer != null) {
            podInformer.close();
        }
        agents.values().forEach(JavaApp::close);
        removeNamespaceAndPolicy(NS);
        removeAgentReports();
        // the operator plans every 15 s now: the next scenario starts with a fresh one at the suite's pace
        cluster.stopOperators();
    }

    static void startAgent(String node) throws IOException {
        JavaApp agent = cluster.startNodeAgent("faults-agent-" + node + "-" + agentStarts.incrementAndGet(), node, environments.get(node));
        agents.put(node, agent);
        agentUpSince.put(node, System.currentTimeMillis());
    }

    static void killAgent(String node) throws InterruptedException {
        JavaApp agent = agents.remove(node);
        agentUpSince.remove(node);
        if (agent != null) {
            agent.kill();
        }
    }

    /** Whether every package of the node is at the performance cap (what the agent wrote last, read from the files). */
    static boolean atPerformance(String node) {
        FakeHost host = hosts.get(node);
        for (int pkg = 0; pkg < PACKAGES; pkg++) {
            if (!host.limit(pkg).equals(host.expectedLimit(pkg, PERFORMANCE_WATTS))) {
                return false;
            }
        }
        return true;
    }

    static String label(String node) {
        Node n = nodeInformer.getStore().getByKey(node);
        return n == null || n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(JoulieApi.POWER_PROFILE_LABEL);
    }

    /** One pass of the monitor: the label first, then the hardware (an agent writes the cap before the label follows). */
    static void check() {
        try {
            long now = System.currentTimeMillis();
            Map<String, String> labels = new HashMap<>();
            Map<String, Boolean> performance = new HashMap<>();
            for (String node : NODES) {
                labels.put(node, label(node));
            }
            for (String node : NODES) {
                performance.put(node, atPerformance(node));
            }
            for (String node : NODES) {
                Long up = agentUpSince.get(node);
                if (!"performance".equals(labels.get(node)) || performance.get(node) || up == null) {
                    openLoop.remove(node); // a crashed agent's node: the fail-closed case is the scenario's first part
                    continue;
                }
                long since = openLoop.computeIfAbsent(node, n -> Math.max(now, up));
                longestLoopMillis.accumulateAndGet(now - since, Math::max);
                if (now - since > BOUND.toMillis() && !violations.contains("closed loop: " + node + " since " + since)) {
                    violations.add("closed loop: " + node + " since " + since);
                    System.out.printf("closed loop: %s labelled performance with package limits %s for %d ms%n", node, limits(node),
                            now - since);
                }
            }
            Set<String> still = new java.util.HashSet<>();
            for (Pod pod : podInformer.getStore().list()) {
                String node = pod.getSpec().getNodeName();
                if (node == null || !NODES.contains(node) || !ContractRecorder.performanceOnly(pod)
                        || pod.getMetadata().getDeletionTimestamp() != null || pod.getStatus() == null
                        || !"Running".equals(pod.getStatus().getPhase()) || performance.get(node)) {
                    continue;
                }
                Long up = agentUpSince.get(node);
                if (up == null) {
                    continue; // no agent runs to lift the cap: the episode starts when one is back
                }
                String key = pod.getMetadata().getName() + "@" + node;
                still.add(key);
                long since = episodes.computeIfAbsent(key, k -> {
                    episodeCount.incrementAndGet();
                    return Math.max(now, up);
                });
                long lasted = now - since;
                longestMillis.accumulateAndGet(lasted, Math::max);
                if (lasted > BOUND.toMillis() && !violations.contains("hardware: " + key)) {
                    violations.add("hardware: " + key);
                    System.out.printf("hardware: performance-only Pod %s below the performance cap for %d ms (limits %s)%n", key,
                            lasted, limits(node));
                }
            }
            episodes.keySet().retainAll(still);
            checks.incrementAndGet();
        } catch (RuntimeException e) {
            violations.add("the monitor failed: " + e);
        }
    }

    static List<String> limits(String node) {
        List<String> l = new ArrayList<>();
        for (int pkg = 0; pkg < PACKAGES; pkg++) {
            l.add(hosts.get(node).limit(pkg));
        }
        return l;
    }

    static NodePowerProfile profile(String node) {
        return cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).get();
    }

    static void deleteProfile(String node) {
        cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(node)).delete();
    }

    static Pod pod(String name, String node) {
        Pod pod = SchedulingIT.pod(name, "performance");
        pod.getMetadata().setNamespace(NS);
        pod.getSpec().setNodeName(node);
        return pod;
    }

    @Test
    void theHardwareKeepsTheContractWhileAgentsCrashProfilesVanishAndPodsArrive() throws Exception {
        cluster.policy("{\"type\":\"static_partition\",\"staticHpFrac\":0.0,\"settleTime\":\"5s\",\"reconcileInterval\":\"15s\"}");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            for (String node : NODES) {
                assertThat(cluster.states()).containsEntry(node, "ActiveEco");
                assertThat(atPerformance(node)).as("packages of " + node + " below the performance cap").isFalse();
                // served: an agent that is killed before it published its hardware leaves a node no agent ever served,
                // whose label rightly follows the plan (a loaded CI machine started the first agent in 8.6 s)
                assertThat(cluster.admin.resources(io.joulie.api.v1alpha1.NodeHardware.class)
                        .withName(JoulieApi.nodePowerProfileName(node)).get())
                        .as("the agent of " + node + " has published its hardware: it serves the node").isNotNull();
            }
        });

        // fail closed: an agent killed on an eco node (its eco limits stay), its profile and answer deleted, every node raised
        String node = NODES.getFirst();
        killAgent(node);
        assertThat(atPerformance(node)).isFalse();
        deleteProfile(node);
        cluster.policy("{\"staticHpFrac\":1.0}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            for (String other : NODES.subList(1, NODES.size())) {
                assertThat(label(other)).as("label of " + other + ", whose agent runs").isEqualTo("performance");
            }
            NodePowerProfile npp = profile(node);
            assertThat(npp).as("the operator made the NodePowerProfile of " + node + " again").isNotNull();
            assertThat(npp.getStatus().state().name()).isEqualTo("ActivePerformance");
        });
        Thread.sleep(20_000); // more than a tick: the label stays put while no agent has confirmed the performance cap
        assertThat(label(node)).as("label of " + node + ", its agent gone and its packages at eco").isNotEqualTo("performance");
        assertThat(profile(node).getStatus().agent().name()).isEqualTo("Waiting");
        startAgent(node);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(atPerformance(node)).isTrue();
            assertThat(label(node)).isEqualTo("performance");
        });

        // one rescue for certain: every node eco, then a performance-only Pod bound straight onto one whose agent runs;
        // its packages must reach the performance cap within the bound. The random phase's rescues are raced: a monitor
        // pass (about 90 ms apart) sees a Pod Running below the cap only when it is quicker than the operator.
        String rescued = NODES.get(1);
        cluster.policy("{\"staticHpFrac\":0.0}");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(cluster.states()).containsEntry(rescued, "ActiveEco");
            assertThat(atPerformance(rescued)).isFalse();
        });
        assertThat(agents).containsKey(rescued);
        long bound = System.currentTimeMillis();
        cluster.admin.resource(pod("direct-rescue", rescued)).create();
        await().atMost(BOUND).pollInterval(Duration.ofMillis(100)).until(() -> atPerformance(rescued));
        System.out.printf("a performance-only Pod bound to eco node %s: its packages at the performance cap %d ms later%n",
                rescued, System.currentTimeMillis() - bound);

        // the seeded random stream
        long seed = Long.getLong("e2e.faults.seed", 1);
        Random rnd = new Random(seed);
        Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
        Map<String, Long> restartAt = new HashMap<>();
        int pods = 0;
        long end = System.currentTimeMillis() + RANDOM_PHASE.toMillis();
        while (System.currentTimeMillis() < end) {
            for (var e : List.copyOf(restartAt.entrySet())) {
                if (System.currentTimeMillis() >= e.getValue()) {
                    restartAt.remove(e.getKey());
                    startAgent(e.getKey());
                }
            }
            String target = NODES.get(rnd.nextInt(NODES.size()));
            Fault f = Fault.values()[rnd.nextInt(Fault.values().length)];
            switch (f) {
                case POD_BOUND_DIRECTLY -> cluster.admin.resource(pod("direct-" + pods++, target)).create();
                case POD_SCHEDULED -> cluster.admin.resource(pod("scheduled-" + pods++, null)).create();
                case POD_DELETED -> {
                    List<Pod> all = podInformer.getStore().list();
                    if (!all.isEmpty()) {
                        cluster.admin.resource(all.get(rnd.nextInt(all.size()))).withGracePeriod(0).delete();
                    }
                }
                case AGENT_KILLED -> {
                    if (agents.containsKey(target)) {
                        killAgent(target);
                        restartAt.put(target, System.currentTimeMillis() + 3_000 + rnd.nextInt(20_000));
                    }
                }
                case PROFILE_DELETED -> deleteProfile(target);
                case PLAN_CHANGED -> cluster.policy("{\"staticHpFrac\":" + List.of("0.0", "0.34", "0.67", "1.0").get(rnd.nextInt(4)) + "}");
                default -> throw new IllegalStateException(f.name());
            }
            faults.merge(f, 1, Integer::sum);
            Thread.sleep(1_000 + rnd.nextInt(4_000));
        }
        for (String n : List.copyOf(restartAt.keySet())) {
            startAgent(n);
        }
        // the end: every agent back, every node at what its plan asks, the monitor's books closed
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (String n : NODES) {
                assertThat(profile(n)).as("NodePowerProfile of " + n).isNotNull();
                assertThat(profile(n).getStatus().agent().name()).as("cap confirmation of " + n).isEqualTo("Confirmed");
            }
        });
        monitor.shutdown();
        assertThat(monitor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        System.out.printf("real agents under the real operator, seed %d: faults %s; %d monitor passes; %d episodes of a "
                + "performance-only Pod below the performance cap, longest %d ms; longest labelled performance below it %d ms"
                + " (bound %d ms); violations %s%n", seed, faults, checks.get(), episodeCount.get(), longestMillis.get(),
                longestLoopMillis.get(), BOUND.toMillis(), violations);

        // the contract's documented exception: a node whose rescues the operator holds (at most 5 in 10 minutes) says so
        Set<String> held = new java.util.TreeSet<>();
        for (io.fabric8.kubernetes.api.model.Event e : cluster.admin.v1().events().inAnyNamespace().list().getItems()) {
            if ("RescueHeld".equals(e.getReason()) && e.getInvolvedObject() != null) {
                held.add(e.getInvolvedObject().getName());
            }
        }
        List<String> unexcused = violations.stream().filter(v -> held.stream().noneMatch(n -> v.startsWith("hardware: ")
                && v.endsWith("@" + n))).toList();
        System.out.printf("nodes whose rescues were held: %s%n", held);
        assertThat(unexcused).isEmpty();
        // the run did what it claims: every fault, rescues on the hardware, agents restarted
        assertThat(faults.keySet()).containsAll(Set.of(Fault.values()));
        // (the rescue on the hardware is asserted by the scripted one before the random phase; the episodes counted here
        // are printed, not required: 0 to 5 in five runs of seed 1)
        assertThat(agentStarts.get()).isGreaterThan(NODES.size() + 1);
        assertThat(checks.get()).isGreaterThan(1_000);
    }
}
