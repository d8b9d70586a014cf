package io.joulie.api.v1alpha1;

import java.util.List;

/**
 * The size limits of the joulie.io resources' fields, as the CRD schemas carry them ({@code @Size}: {@code maxLength},
 * {@code maxItems}, {@code maxProperties}): the API server refuses a larger object, so that no writer (a compromised
 * node agent in particular, which may create its NodeHardware and answer in its NodePowerProfile) can fill the
 * watch caches of the operator and of every agent. Generous for real use; what Joulie itself writes is cut to them
 * ({@link #clip}, {@link #first}) rather than refused.
 */
public final class Limits {
    /** A Kubernetes object or node name (DNS subdomain). */
    public static final int NAME = 253;
    /** A pod as {@code namespace/name}: a 63-character namespace, '/', a 253-character name. */
    public static final int POD = 317;
    /** A short token: a backend, vendor, zone, reason word, time stamp, duration, time zone. */
    public static final int WORD = 64;
    /** A model or board name, an image reference, a label key or value, a file path. */
    public static final int TEXT = 512;
    /** A URL. */
    public static final int URL = 2048;
    /** A PromQL query. */
    public static final int QUERY = 4096;
    /** A message: why something was blocked, failed or clamped. */
    public static final int MESSAGE = 1024;
    /** The operator's reason for a node's state (it names at most a few pods: StateGuard's describePods). */
    public static final int REASON = 4096;
    /** CPU packages or GPU boards of one node. */
    public static final int DEVICES = 64;
    /**
     * Pods listed on one node ({@code status.forcedPods}): more than the kubelet's default maximum of 110 pods per
     * node, and its recommended ceiling of 250.
     */
    public static final int PODS = 256;
    /** Nodes listed in the Joulie resource's status ({@code excludedNodes}); the count of all is beside them. */
    public static final int NODES = 100;
    /** Entries of a configured list or map: schedules, tolerations, node selectors, labels, caps by node type. */
    public static final int ENTRIES = 64;

    private Limits() {
    }

    /** {@code text} cut to {@code max} characters (null stays null); a cut ends with "…" so that it reads as one. */
    public static String clip(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, max - 1) + "…";
    }

    /** The first {@code max} items of {@code items} (null stays null). */
    public static <T> List<T> first(List<T> items, int max) {
        return items == null || items.size() <= max ? items : List.copyOf(items.subList(0, max));
    }
}
