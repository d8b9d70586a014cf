package io.joulie.agent.runtime;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.cpu.CpuControls;
import io.joulie.agent.control.cpu.HostCpuControl;
import io.joulie.agent.control.gpu.GpuControls;
import io.joulie.agent.control.gpu.HostGpuControl;
import io.joulie.agent.host.CpuInfo;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.CpuVendor;
import io.joulie.agent.host.Gpus;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostFileException;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.LimitSnapshot;
import io.joulie.agent.host.MemorySysfs;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.OriginalsStore;
import io.joulie.agent.host.OriginalsStore.Stored;
import io.joulie.agent.host.SysfsCpufreq;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.k8s.HardwarePublisher;
import io.joulie.agent.k8s.StatusPublisher;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.power.NodeTelemetry;
import io.joulie.agent.power.PackagePowerMeter;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.testkit.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded, randomised fault injection of the agent's control code on one simulated node: the real reconcile, CPU
 * controls, RAPL cap policy, cpufreq and originals keeping (the agent as NodeAgent assembles it, over an in-memory
 * sysfs and an in-memory originals store that outlives the agent processes), driven through random steps: profiles
 * (valid, nonsensical, below the floor, eco above performance, unknown), periodic passes with the energy counters
 * running, profiles deleted (also while no agent runs), routes moved away from host, limits changed behind the agent's
 * back, writes refused or failing, the originals store failing, agent crashes (kill without restore), clean exits,
 * restarts, reboots (new boot id, firmware limits), kexec reboots (new boot id, cpufreq ceilings reset by the new
 * kernel, the RAPL limits left as they were) and starts with an unreadable boot id. After every write and every step it
 * checks the invariants:
 * <ol>
 * <li><b>bounds</b>: every limit the agent writes is within [floor / dies, maximum] or is the zone's original; every
 *     cpufreq ceiling within [cpuinfo_min_freq, cpuinfo_max_freq]; platform zones and {@code enabled} are never
 *     written;</li>
 * <li><b>originals first</b>: the originals the agent keeps are what is in force when it keeps them (never a cap of its
 *     own), and at every write the store holds them, exactly; across a restart that left a limit the agent wrote in
 *     force (a crash, kexec, an unreadable boot id) they stay those of the episode that wrote it;</li>
 * <li><b>restored exactly</b>: whenever the store is empty again after the agent held the hardware (a restore that
 *     put everything back: clean exit, profile deleted, route moved), every limit and ceiling is its original.</li>
 * </ol>
 * Used by {@code AgentFaultInjectionTest} (fixed seeds, in the test run) and as a longer run from the command line
 * (docs/reliability.md).
 */
final class AgentFaultInjection {
    static final Path SYS = Path.of("/sys");
    static final Path POWERCAP = SYS.resolve("class/powercap");
    static final Path CPUFREQ = SYS.resolve("devices/system/cpu/cpufreq");
    static final String NODE = "sim-node";
    static final double FLOOR_WATTS = AgentSettings.DEFAULT_PACKAGE_FLOOR_WATTS;
    static final long CPU_MIN_KHZ = 800_000;
    static final long CPU_MAX_KHZ = 3_500_000;

    /** What a step did. */
    enum Step {
        PROFILE, BAD_PROFILE, DELETE_PROFILE, PERIODIC, ROUTE_NONE, ROUTE_HOST, DRIFT, CRASH, CLEAN_EXIT, RESTART, REBOOT, KEXEC
    }

    /** An injected fault. */
    enum Fault { WRITE_REFUSED, WRITE_FAILED, STORE_FAILED, BOOT_ID_UNREADABLE }

    /** The figures of one run. */
    record Figures(long seed, int steps, Map<Step, Integer> stepsByKind, Map<Fault, Integer> faults, int agentWrites,
                   int restoresChecked, int crashes, int reboots, int kexecs, List<String> violations) {
    }

    /** A package zone of the simulated node. */
    record Zone(String id, String name, int pkg, int diesOfPackage, long maxUw) {
        Path limit() {
            return POWERCAP.resolve(id).resolve("constraint_0_power_limit_uw");
        }
    }

    private final long seed;
    private final Random random;
    private final MemorySysfs files = new MemorySysfs();
    private final List<Zone> zones = new ArrayList<>();
    private final List<Path> platformLimits = new ArrayList<>();
    private final List<Path> enabledFiles = new ArrayList<>();
    private final List<Integer> policies = List.of(0, 1, 2, 3);
    private final Map<Path, String> firmware = new LinkedHashMap<>();
    private final OriginalsStore<CpuOriginals> memory = OriginalsStore.memory();
    private final MemoryView view = new MemoryView();
    private final FakeClock clock = new FakeClock();
    private final AgentMetrics metrics = new AgentMetrics(new SimpleMeterRegistry());
    private final Map<Step, Integer> stepsByKind = new EnumMap<>(Step.class);
    private final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
    private final List<String> violations = new ArrayList<>();
    /** The last steps, for the first violation's message (what led to it). */
    private final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();
    private int boot = 1;
    /** Failures to inject: the probability that a write through the port is refused, or fails, and the store breaks. */
    private double refuseRate;
    private double failRate;
    private boolean storeBroken;
    /** The agent process running, if any. */
    private NodeReconciler agent;
    private CpuControls controls;
    /** The agent holds the hardware: it kept originals, and has not restored them since; {@link #expected} are those. */
    private boolean owned;
    /**
     * The package limits the agent wrote since it kept {@link #expected}, as the port saw them (the harness's own record,
     * not the agent's): what a restart compares with the hardware to tell a kexec from a firmware reset.
     */
    private final Map<Path, String> agentWrote = new TreeMap<>();
    /**
     * A package limit was written while the store was broken, and the process that wrote it has not saved since (a
     * process that died took its unsaved record with it: then it stays so until the episode ends).
     */
    private boolean unrecorded;
    private int process;
    private int unrecordedBy;
    /** This start's decision is the agent's to make: either is accepted, and {@link #start} takes the agent's. */
    private boolean agentDecides;
    private Map<Path, String> expected = Map.of();
    private int agentWrites;
    private int restoresChecked;
    private int crashes;
    private int reboots;
    private int kexecs;
    private int step;

    AgentFaultInjection(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        buildHost();
        files.hook(this::inject);
        files.listener(this::written);
    }

    /** 1 or 2 packages, each a whole package or 2 dies; the platform zones psys and psys-1; 4 cpufreq policies. */
    private void buildHost() {
        int packages = 1 + random.nextInt(2);
        int n = 0;
        for (int pkg = 0; pkg < packages; pkg++) {
            int dies = 1 + random.nextInt(2);
            for (int die = 0; die < dies; die++) {
                long maxUw = (150 + random.nextInt(200)) * 1_000_000L;
                Zone zone = new Zone("intel-rapl:" + n++, dies == 1 ? "package-" + pkg : "package-" + pkg + "-die-" + die, pkg, dies, maxUw);
                zone(zone.id(), zone.name(), maxUw);
                zones.add(zone);
                firmware.put(zone.limit(), Long.toString((long) (maxUw * (0.5 + random.nextDouble() * 0.5))));
            }
        }
        for (String platform : List.of("psys", "psys-1")) {
            String id = "intel-rapl:" + n++;
            zone(id, platform, 500_000_000);
            platformLimits.add(POWERCAP.resolve(id).resolve("constraint_0_power_limit_uw"));
        }
        for (int policy : policies) {
            Path dir = CPUFREQ.resolve("policy" + policy);
            files.put(dir.resolve("cpuinfo_min_freq"), CPU_MIN_KHZ).put(dir.resolve("cpuinfo_max_freq"), CPU_MAX_KHZ);
            firmware.put(dir.resolve("scaling_max_freq"), Long.toString(CPU_MAX_KHZ - 100_000L * random.nextInt(5)));
        }
        firmware.forEach(files::put);
        files.put(Path.of("/proc/sys/kernel/random/boot_id"), bootId());
    }

    private void zone(String id, String name, long maxUw) {
        Path dir = POWERCAP.resolve(id);
        files.put(dir.resolve("name"), name).put(dir.resolve("energy_uj"), 0).put(dir.resolve("max_energy_range_uj"), 262_143_328_850L)
                .put(dir.resolve("enabled"), 1).put(dir.resolve("constraint_0_name"), "long_term")
                .put(dir.resolve("constraint_0_power_limit_uw"), maxUw / 2).put(dir.resolve("constraint_0_max_power_uw"), maxUw);
        enabledFiles.add(dir.resolve("enabled"));
    }

    private String bootId() {
        return "sim-boot-" + seed + "-" + boot;
    }

    /** The limit and ceiling files whose originals are kept. */
    private List<Path> keptFiles() {
        List<Path> kept = new ArrayList<>(zones.stream().map(Zone::limit).toList());
        policies.forEach(p -> kept.add(CPUFREQ.resolve("policy" + p + "/scaling_max_freq")));
        return kept;
    }

    private Map<Path, String> hardware() {
        Map<Path, String> now = new TreeMap<>();
        keptFiles().forEach(f -> now.put(f, files.get(f)));
        return now;
    }

    private Optional<HostFileException.Kind> inject(Path file, String value) {
        double r = random.nextDouble();
        if (r < refuseRate) {
            faults.merge(Fault.WRITE_REFUSED, 1, Integer::sum);
            return Optional.of(HostFileException.Kind.REFUSED);
        }
        if (r < refuseRate + failRate) {
            faults.merge(Fault.WRITE_FAILED, 1, Integer::sum);
            return Optional.of(HostFileException.Kind.FAULT);
        }
        return Optional.empty();
    }

    /** Every write the agent makes through the port: invariants 1 and 2. */
    private void written(Path file, String before, String after) {
        agentWrites++;
        if (zones.stream().anyMatch(z -> z.limit().equals(file))) {
            agentWrote.put(file, after);
            // with the store broken the agent cannot record what it wrote (it says so) until its next save
            if (storeBroken) {
                unrecorded = true;
                unrecordedBy = process;
            }
        }
        if (!owned) {
            violation("wrote " + after + " to " + file + " with no originals kept");
        }
        long value = Long.parseLong(after);
        if (platformLimits.contains(file) || enabledFiles.contains(file)) {
            violation("wrote " + after + " to " + file + ", which is not a package limit");
        }
        for (Zone zone : zones) {
            if (zone.limit().equals(file)) {
                long floorUw = Math.min(Math.round(FLOOR_WATTS * 1e6), packageMaxUw(zone.pkg())) / zone.diesOfPackage();
                boolean original = after.equals(expected.get(file));
                if (!original && (value > zone.maxUw() || value < floorUw - zone.diesOfPackage())) {
                    violation("wrote " + value + " uW to " + zone.name() + ": outside [" + floorUw + ", " + zone.maxUw() + "] and not its original "
                            + expected.get(file));
                }
            }
        }
        if (file.startsWith(CPUFREQ) && (value < CPU_MIN_KHZ || value > CPU_MAX_KHZ)) {
            violation("wrote " + value + " kHz to " + file + ": outside [" + CPU_MIN_KHZ + ", " + CPU_MAX_KHZ + "]");
        }
        Optional<CpuOriginals> stored;
        try {
            stored = memory.load().map(Stored::originals);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        if (stored.isEmpty() || !asFiles(stored.get()).equals(expected)) {
            violation("wrote " + file + " while the store held " + stored.map(this::asFiles).orElse(null) + ", not the originals " + expected);
        }
    }

    private long packageMaxUw(int pkg) {
        return zones.stream().filter(z -> z.pkg() == pkg).mapToLong(Zone::maxUw).sum();
    }

    private Map<Path, String> asFiles(CpuOriginals originals) {
        Map<Path, String> out = new TreeMap<>();
        for (LimitSnapshot limit : originals.powercap()) {
            out.put(POWERCAP.resolve(limit.zoneId()).resolve("constraint_" + limit.constraintIndex() + "_power_limit_uw"),
                    Long.toString(limit.powerLimitUw()));
        }
        originals.cpufreqMaxKHz().forEach((policy, kHz) -> out.put(CPUFREQ.resolve("policy" + policy + "/scaling_max_freq"), Long.toString(kHz)));
        return out;
    }

    private void violation(String what) {
        violations.add("seed " + seed + ", step " + step + ": " + what + (violations.isEmpty() ? "; the steps before: " + recent : ""));
    }

    private void trace(String what) {
        recent.addLast(step + " " + what);
        if (recent.size() > 12) {
            recent.removeFirst();
        }
    }

    /** The store the agents see: the memory one, failing every call while {@link #storeBroken}. */
    private final OriginalsStore<CpuOriginals> store = new OriginalsStore<>() {
        @Override
        public Optional<Stored<CpuOriginals>> load() throws IOException {
            check();
            return memory.load();
        }

        /**
         * The agent keeps originals before it writes: from here on it holds the hardware, and what is in force now is
         * what must come back (a crash from here on leaves its successor no way to tell its writes from anyone else's).
         */
        @Override
        public void save(Stored<CpuOriginals> stored) throws IOException {
            check();
            memory.save(stored);
            if (unrecordedBy == process) {
                unrecorded = false;
            }
            CpuOriginals originals = stored.originals();
            if (owned) { // an episode this boot has not ended: its originals must stay, whatever is in force now
                if (!asFiles(originals).equals(expected)) {
                    violation("replaced the kept originals " + expected + " by " + asFiles(originals));
                }
                return;
            }
            owned = true;
            agentWrote.clear();
            unrecorded = false;
            expected = hardware();
            if (!asFiles(originals).equals(expected)) {
                violation("kept " + asFiles(originals) + " as the originals while " + expected + " is in force");
            }
        }

        @Override
        public void clear() throws IOException {
            check();
            memory.clear();
        }

        @Override
        public String describe() {
            return "the simulated state directory";
        }

        private void check() throws IOException {
            if (storeBroken) {
                faults.merge(Fault.STORE_FAILED, 1, Integer::sum);
                throw new IOException("state directory not writable (injected)");
            }
        }
    };

    /** A new agent process, assembled as NodeAgent and AgentProducers do it. */
    private void start() throws IOException {
        Optional<String> bootId = Optional.of(bootId());
        if (random.nextInt(8) == 0) {
            faults.merge(Fault.BOOT_ID_UNREADABLE, 1, Integer::sum);
            bootId = Optional.empty();
            trace("  boot id unreadable");
        }
        expectAtStart(bootId);
        AgentSettings settings = new AgentSettings(AgentMode.NODE, Optional.of(NODE), Duration.ofSeconds(20), HostRoots.under(Path.of("/")),
                true, LabelSelector.parse(""), 1, 0, Path.of("/var/lib/joulie"), FLOOR_WATTS, AgentSettings.DEFAULT_NVML_LIBRARY);
        AgentProducers.NodeHost opened = AgentProducers.openHost(store, bootId,
                this::limitsAtStart, inherited -> new Host(settings.roots(),
                new CpuInfo(CpuVendor.INTEL, "simulated"), Msr.absent(),
                SysfsPowercap.open(SYS, files, Msr.absent(), FLOOR_WATTS, inherited.map(CpuOriginals::powercap).orElse(List.of())),
                SysfsCpufreq.open(SYS, files, inherited.map(CpuOriginals::cpufreqMaxKHz).orElse(Map.of())),
                Gpus.absent("no GPU on the simulated node")), line -> { });
        process++;
        if (agentDecides) {
            agentDecides = false;
            owned = opened.originals().kept().isPresent();
            if (!owned) {
                agentWrote.clear();
                unrecorded = false;
            }
            trace("  the agent " + (owned ? "kept" : "dropped") + " the originals");
        }
        HostCpuControl host = new HostCpuControl(opened.host().powercap(), opened.host().cpufreq(), opened.originals(), clock);
        controls = new CpuControls(host, (node, s) -> {
            throw new IllegalStateException("no http control on the simulated node");
        }, true);
        GpuControls gpuControls = new GpuControls(new HostGpuControl(opened.host().gpus()), (node, s) -> {
            throw new IllegalStateException("no http control on the simulated node");
        }, true);
        NodeTelemetry.Fetch noRemote = (url, timeout) -> {
            throw new IOException("no remote source on the simulated node");
        };
        NodeTelemetry telemetry = new NodeTelemetry(new PackagePowerMeter(opened.host().powercap(), clock), opened.host().gpus(), noRemote,
                metrics, clock);
        StatusPublisher status = new StatusPublisher((npp, applied) -> { }, metrics);
        HardwarePublisher hardware = new HardwarePublisher((node, route, boards, described) -> Optional.empty(),
                new HardwarePublisher.Sink() {
                    @Override
                    public Optional<NodeHardwareStatus> current(String node) {
                        return Optional.empty();
                    }

                    @Override
                    public boolean write(String node, NodeHardwareStatus status) {
                        return true;
                    }
                }, metrics);
        agent = new NodeReconciler(new ServedNodes(settings, view), view, controls, gpuControls, telemetry, status,
                hardware, metrics);
    }

    /**
     * What a new agent process must do with originals the store holds while the agent held the hardware, by what the
     * port saw (not by what the agent recorded): the same boot (both ids known) keeps them, and so does a package limit
     * the agent wrote, other than its original, still in force (a kexec: dropping them would take the agent's cap for the
     * original). Otherwise either is accepted (the originals were read before the agent's first write, so keeping them
     * never restores a cap of the agent's), and so is either when the write in force is one the agent could not record
     * (it said so): the agent decides.
     */
    private void expectAtStart(Optional<String> bootId) throws IOException {
        if (!owned || storeBroken) {
            // a store that cannot be read stops the new process's writes and leaves the decision to a later start
            return;
        }
        Optional<String> storedBoot = memory.load().flatMap(Stored::bootId);
        if (storedBoot.isPresent() && storedBoot.equals(bootId)) {
            return;
        }
        Map<Path, String> agents = new TreeMap<>();
        agentWrote.forEach((file, value) -> {
            if (!value.equals(expected.get(file))) {
                agents.put(file, value);
            }
        });
        boolean shown = agents.entrySet().stream().anyMatch(e -> e.getValue().equals(files.get(e.getKey())));
        agentDecides = !shown || unrecorded;
        trace("  start: boot " + bootId.orElse("unreadable") + ", stored " + storedBoot.orElse("none") + ", agent's write in force "
                + shown + (unrecorded ? " (an unrecorded write)" : "") + " -> " + (agentDecides ? "the agent decides" : "originals kept"));
    }

    /**
     * The package limits a new agent process reads at start, without injected read faults: {@link #expectAtStart} knows
     * the hardware, and an unreadable limit is KeptOriginalsTest's case.
     */
    private Map<String, Long> limitsAtStart() throws IOException {
        double refuse = refuseRate;
        double fail = failRate;
        refuseRate = 0;
        failRate = 0;
        try {
            return AgentProducers.packageLimitsUw(SysfsPowercap.open(SYS, files, Msr.absent()));
        } finally {
            refuseRate = refuse;
            failRate = fail;
        }
    }

    private void profile(Profile profile, Double cap) {
        trace("  profile " + profile + " " + cap);
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName(JoulieApi.nodePowerProfileName(NODE)).build());
        npp.setSpec(new NodePowerProfileSpec(NODE, profile, cap == null ? null : NodePowerProfileSpec.CpuPower.watts(cap), null));
        view.put(npp);
    }

    private void route(TelemetryProfileSpec.ControlType type) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName("cluster-route").build());
        tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null), null,
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(type, null), null)));
        view.put(tp);
    }

    /** Runs {@code steps} random steps and returns the figures. */
    Figures run(int steps) throws IOException {
        start();
        for (step = 1; step <= steps; step++) {
            // faults come and go: most steps see none, some a few percent of writes refused or failing, a broken store
            refuseRate = random.nextInt(10) == 0 ? 0.2 : 0;
            failRate = random.nextInt(10) == 0 ? 0.2 : 0;
            storeBroken = random.nextInt(25) == 0;
            Step kind = next();
            stepsByKind.merge(kind, 1, Integer::sum);
            trace(kind + (refuseRate + failRate > 0 ? " (writes failing)" : "") + (storeBroken ? " (store broken)" : ""));
            perform(kind);
            refuseRate = 0;
            failRate = 0;
            storeBroken = false;
            checkRestored();
        }
        if (agent == null) {
            start();
        }
        agent.reconcile(NODE, true);
        exit();
        return new Figures(seed, steps, stepsByKind, faults, agentWrites, restoresChecked, crashes, reboots, kexecs,
                List.copyOf(violations));
    }

    private Step next() {
        if (agent == null) {
            int r = random.nextInt(10);
            return r < 6 ? Step.RESTART : r < 8 ? Step.DELETE_PROFILE : r < 9 ? Step.DRIFT : random.nextBoolean() ? Step.REBOOT : Step.KEXEC;
        }
        int r = random.nextInt(100);
        if (r < 30) {
            return Step.PROFILE;
        } else if (r < 38) {
            return Step.BAD_PROFILE;
        } else if (r < 45) {
            return Step.DELETE_PROFILE;
        } else if (r < 70) {
            return Step.PERIODIC;
        } else if (r < 74) {
            return Step.ROUTE_NONE;
        } else if (r < 78) {
            return Step.ROUTE_HOST;
        } else if (r < 84) {
            return Step.DRIFT;
        } else if (r < 92) {
            return Step.CRASH;
        } else if (r < 96) {
            return Step.CLEAN_EXIT;
        } else if (r < 98) {
            return Step.KEXEC;
        }
        return Step.REBOOT;
    }

    private void perform(Step kind) throws IOException {
        switch (kind) {
            case PROFILE -> {
                boolean eco = random.nextBoolean();
                profile(eco ? Profile.ECO : Profile.PERFORMANCE, eco ? 20.0 + random.nextInt(400) : 200.0 + random.nextInt(5000));
                reconcile(false);
            }
            case BAD_PROFILE -> {
                Double[] bad = {0.0, -5.0, Double.NaN, Double.POSITIVE_INFINITY, null, 1.0, 5.0, 10_000.0};
                profile(random.nextInt(8) == 0 ? null : Profile.ECO, bad[random.nextInt(bad.length)]);
                reconcile(false);
            }
            case DELETE_PROFILE -> {
                view.profiles.clear();
                reconcile(false);
            }
            case PERIODIC -> {
                clock.advance(Duration.ofSeconds(20));
                for (Zone zone : zones) { // 20 s at 40..440 W a zone: the meter's readings drive the DVFS loop
                    Path energy = POWERCAP.resolve(zone.id()).resolve("energy_uj");
                    files.put(energy, Long.parseLong(files.get(energy)) + (40 + random.nextInt(400)) * 20_000_000L);
                }
                reconcile(true);
            }
            case ROUTE_NONE -> {
                route(TelemetryProfileSpec.ControlType.NONE);
                reconcile(false);
            }
            case ROUTE_HOST -> {
                view.telemetry.clear();
                reconcile(false);
            }
            case DRIFT -> { // someone on the host changes a limit or turns power limiting off and on
                Zone zone = zones.get(random.nextInt(zones.size()));
                if (random.nextInt(4) == 0) {
                    files.put(POWERCAP.resolve(zone.id()).resolve("enabled"), random.nextInt(2));
                } else {
                    files.put(zone.limit(), (long) (zone.maxUw() * (0.3 + random.nextDouble() * 0.7)));
                }
                reconcile(true);
            }
            case CRASH -> {
                crashes++;
                agent = null; // SIGKILL, OOM kill: no restore
            }
            case CLEAN_EXIT -> exit();
            case RESTART -> start();
            case REBOOT -> {
                reboots++;
                agent = null; // the agent dies with the node
                boot++;
                firmware.forEach(files::put); // the firmware sets its limits again
                zones.forEach(z -> files.put(POWERCAP.resolve(z.id()).resolve("enabled"), 1));
                files.put(Path.of("/proc/sys/kernel/random/boot_id"), bootId());
                // what the next agent must make of the originals is decided at its start (expectAtStart)
            }
            case KEXEC -> {
                kexecs++;
                agent = null; // the agent dies with the old kernel, without a restore
                boot++;
                // the new kernel starts cpufreq afresh; the firmware does not run, so the RAPL limits stay as they were
                firmware.forEach((file, value) -> {
                    if (file.startsWith(CPUFREQ)) {
                        files.put(file, value);
                    }
                });
                files.put(Path.of("/proc/sys/kernel/random/boot_id"), bootId());
            }
        }
    }

    private void reconcile(boolean periodic) {
        if (agent != null) {
            try {
                agent.reconcile(NODE, periodic);
                trace("  hardware " + hardware().values() + " store " + (storeHolds() ? "holds" : "empty") + " owned " + owned);
            } catch (RuntimeException e) { // the loop would log and count it, but a fault must become a reported outcome
                violation("the reconcile threw " + e);
            }
        }
    }

    /** SIGTERM: the worker stops, then the host's originals go back (JOULIE_RESTORE_ON_EXIT=true). */
    private void exit() {
        if (agent != null) {
            Optional<ControlOutcome> restored = controls.restoreOnExit();
            agent = null;
            restored.ifPresent(r -> {
                if (r.result() == io.joulie.api.v1alpha1.ControlResult.RESTORED && owned && !storeHolds()) {
                    checkRestored();
                }
            });
        }
    }

    private boolean storeHolds() {
        try {
            return memory.load().isPresent();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Invariant 3: the store empty again after the agent held the hardware means everything is back at its original. */
    private void checkRestored() {
        if (owned && !storeHolds()) {
            restoresChecked++;
            Map<Path, String> now = hardware();
            if (!now.equals(expected)) {
                violation("the originals were dropped but the hardware is " + now + ", not " + expected);
            }
            owned = false;
            agentWrote.clear();
            unrecorded = false;
        }
    }
}
