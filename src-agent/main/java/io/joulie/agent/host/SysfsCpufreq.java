package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link Cpufreq} on {@code <sys>/devices/system/cpu/cpufreq/policyN} through a {@link SysfsFiles} port. Not
 * thread-safe: the agent's worker calls it.
 */
public final class SysfsCpufreq implements Cpufreq {
    private static final Pattern POLICY = Pattern.compile("policy(\\d+)");

    private final SysfsFiles files;
    private final Path cpufreqDir;
    private List<CpufreqPolicy> policies;

    private SysfsCpufreq(SysfsFiles files, Path cpufreqDir, List<CpufreqPolicy> policies) {
        this.files = files;
        this.cpufreqDir = cpufreqDir;
        this.policies = policies;
    }

    /** {@link #open(Path, SysfsFiles, Map)} with the ceilings in force now as originals. */
    public static Cpufreq open(Path sysRoot, SysfsFiles files) throws IOException {
        return open(sysRoot, files, Map.of());
    }

    /**
     * Reads every policy's range and current {@code scaling_max_freq}; {@link Cpufreq#absent()} if there is none.
     *
     * @param inheritedMaxKHz original ceilings by policy an earlier agent process of this boot recorded; every policy
     *                        they do not name has the {@code scaling_max_freq} in force now as its original
     */
    public static Cpufreq open(Path sysRoot, SysfsFiles files, Map<Integer, Long> inheritedMaxKHz) throws IOException {
        Path dir = sysRoot.resolve("devices/system/cpu/cpufreq");
        if (!files.isDirectory(dir)) {
            return Cpufreq.absent();
        }
        List<CpufreqPolicy> policies = new ArrayList<>();
        for (Path entry : files.list(dir)) {
            Matcher m = POLICY.matcher(entry.getFileName().toString());
            if (m.matches()) {
                int id = Integer.parseInt(m.group(1));
                Long inherited = inheritedMaxKHz.get(id);
                policies.add(new CpufreqPolicy(id,
                        files.readDecimal(entry.resolve("cpuinfo_min_freq")),
                        files.readDecimal(entry.resolve("cpuinfo_max_freq")),
                        inherited != null ? inherited : files.readDecimal(entry.resolve("scaling_max_freq"))));
            }
        }
        policies.sort(Comparator.comparingInt(CpufreqPolicy::id));
        return policies.isEmpty() ? Cpufreq.absent() : new SysfsCpufreq(files, dir, List.copyOf(policies));
    }

    @Override
    public List<CpufreqPolicy> policies() {
        return policies;
    }

    @Override
    public void recordOriginals() throws IOException {
        List<CpufreqPolicy> now = new ArrayList<>();
        for (CpufreqPolicy p : policies) {
            now.add(new CpufreqPolicy(p.id(), p.cpuinfoMinKHz(), p.cpuinfoMaxKHz(),
                    files.readDecimal(cpufreqDir.resolve("policy" + p.id() + "/scaling_max_freq"))));
        }
        policies = List.copyOf(now);
    }

    @Override
    public long setScalingMaxKHz(int policyId, long kHz) throws IOException {
        CpufreqPolicy policy = policies.stream().filter(p -> p.id() == policyId).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no cpufreq policy " + policyId));
        long value = policy.clamp(kHz);
        write(policy, value);
        return value;
    }

    /** Tries every policy; the first failure is thrown with the others suppressed. */
    @Override
    public void restore() throws IOException {
        IOException failure = null;
        for (CpufreqPolicy policy : policies) {
            try {
                write(policy, policy.originalScalingMaxKHz());
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void write(CpufreqPolicy policy, long kHz) throws IOException {
        files.writeText(cpufreqDir.resolve("policy" + policy.id() + "/scaling_max_freq"), Long.toString(kHz));
    }
}
