package io.joulie.api.v1alpha1;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** Constants of the joulie.io API that both the operator and the agent rely on. */
public final class JoulieApi {
    public static final String GROUP = "joulie.io";
    public static final String VERSION = "v1alpha1";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    /** Node label that advertises the node's power supply; pods select on it. */
    public static final String POWER_PROFILE_LABEL = "joulie.io/power-profile";
    /** Label value of a node that is draining its performance pods before it may go eco. */
    public static final String DRAINING_PERFORMANCE = "draining-performance";
    /** Prefix of the capability labels the agent's start-up probe puts on its Node. */
    public static final String FEATURE_LABEL_PREFIX = "feature.joulie.io/";
    /** Capability label: a RAPL power limit can be written (value {@code true}/{@code false}). */
    public static final String FEATURE_RAPL_WRITABLE = FEATURE_LABEL_PREFIX + "rapl-writable";
    /** Capability label: cpufreq frequency limits can be written (value {@code true}/{@code false}). */
    public static final String FEATURE_CPUFREQ = FEATURE_LABEL_PREFIX + "cpufreq";
    /**
     * Pod annotation by which a workload declares how it responds to a lower CPU frequency: {@value #WORKLOAD_CLASS_ECO}
     * for work that loses little (memory- or I/O-bound). It constrains nothing by itself; the demand_sized_v1 policy
     * sizes the eco pool to the declared work, which reaches it by a preferred node affinity for
     * {@code joulie.io/power-profile=eco}.
     */
    public static final String WORKLOAD_CLASS_ANNOTATION = "joulie.io/workload-class";
    /** The {@link #WORKLOAD_CLASS_ANNOTATION} value of work that loses little at a lower frequency. */
    public static final String WORKLOAD_CLASS_ECO = "eco";
    /**
     * Namespace label that gives its Pods a default workload class: with {@value #WORKLOAD_CLASS_ECO}, the placement
     * webhook annotates every Pod created there that names neither a workload class nor the power profile itself
     * (decision 213). Same key as {@link #WORKLOAD_CLASS_ANNOTATION}.
     */
    public static final String WORKLOAD_CLASS_NAMESPACE_LABEL = "joulie.io/workload-class";
    /** The well-known node label that names a node's type: eco caps can be set per type. */
    public static final String NODE_TYPE_LABEL = "node.kubernetes.io/instance-type";

    /**
     * Label naming a node ({@link #nodeLabelValue}) on its NodeHardware and on node-scoped TelemetryProfiles: a node-mode
     * agent watches only the TelemetryProfiles labelled with its node and the unlabelled ones.
     */
    public static final String NODE_LABEL = "joulie.io/node";

    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    private JoulieApi() {
    }

    /** The {@link #NODE_LABEL} value for a node: its name, when the name is a valid label value (at most 63 characters). */
    public static Optional<String> nodeLabelValue(String nodeName) {
        return nodeName.length() <= 63 && LABEL_VALUE.matcher(nodeName).matches() ? Optional.of(nodeName) : Optional.empty();
    }

    /**
     * The name of the NodePowerProfile of a node: {@code node-} plus the node name lower-cased, every
     * character outside {@code [a-z0-9-]} replaced by {@code -}. A node-mode agent watches only the NodePowerProfile of
     * this name and acts on it only if its {@code spec.nodeName} is the agent's node (names of different nodes can map
     * to one; the operator gives it to one of them). Names longer than 253 characters are shortened and suffixed with a
     * hash of the node name.
     */
    public static String nodePowerProfileName(String nodeName) {
        StringBuilder sb = new StringBuilder("node-");
        for (char c : nodeName.toLowerCase(Locale.ROOT).toCharArray()) {
            sb.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c : '-');
        }
        if (sb.length() > MAX_NAME) {
            // Object names are at most 253 characters: keep a prefix and make it unique with a hash.
            String hash = String.format("%08x", nodeName.hashCode());
            sb.setLength(MAX_NAME - hash.length() - 1);
            sb.append('-').append(hash);
        }
        return sb.toString();
    }

    private static final int MAX_NAME = 253;
}
