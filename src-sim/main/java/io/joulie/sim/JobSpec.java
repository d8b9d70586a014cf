package io.joulie.sim;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.EcoPlacement;
import io.joulie.planner.PodClass;
import io.joulie.planner.PodClassifier;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One job of the workload, immutable (a run keeps its progress elsewhere, so baselines share the list).
 *
 * @param id           0-based index, also the pod name {@code sim/job-<id>}
 * @param arrival      arrival time in seconds from the start
 * @param cores        requested cores
 * @param work         work in core-seconds; for a GPU job, in board-seconds (its boards at their highest clock)
 * @param sensitivity  sensitivity s to the clock that does its work: speed = cores · (1 − (1 − f) · s) with f the CPU's
 *                     frequency scale; for a GPU job, gpus · (1 − (1 − f) · s) with f its boards' clock scale
 * @param profile      the value of its {@code joulie.io/power-profile} nodeSelector, or null for none
 * @param podClass     its class as the operator's {@link PodClassifier} reads that nodeSelector
 * @param declaresEco  whether its pod carries {@code joulie.io/workload-class: eco} (and with it a preferred node
 *                     affinity for eco nodes), as the operator's classifier reads the annotation
 * @param gpus         GPU boards it requests ({@code nvidia.com/gpu}); 0 for a CPU job. A GPU job also holds its
 *                     {@code cores} on the GPU node's host, but its work progresses by its boards' clock only
 * @param activity     the share of its requested cores it keeps busy, in (0, 1]: its cores put {@code cores · activity}
 *                     of load on the node's SPECpower curve (which is throughput, every core partly busy). Its work is
 *                     in requested core-seconds, so its duration does not depend on it
 * @param prefersEco   whether its pod, as the operator's admission webhook leaves it ({@link EcoPlacement#apply}),
 *                     has a preferred node affinity for eco nodes: the scheduler then takes an eco node first
 */
public record JobSpec(int id, double arrival, int cores, double work, double sensitivity, String profile,
                      PodClass podClass, boolean declaresEco, int gpus, double activity, boolean prefersEco) {

    /**
     * {@link #prefersEco(String, boolean)} by (profile, declaresEco), the only inputs of a job's pod: a day has hundreds
     * of thousands of jobs, and the rule runs once per pair.
     */
    private static final Map<String, Boolean> PREFERS_ECO = new ConcurrentHashMap<>();

    public JobSpec {
        SimConfig.require(gpus >= 0, "job " + id + ": GPU boards must be ≥ 0, got " + gpus);
        SimConfig.require(activity > 0 && activity <= 1, "job " + id + ": activity must be in (0, 1], got " + activity);
    }

    /** A job whose eco preference is what {@link EcoPlacement} gives its pod. */
    public JobSpec(int id, double arrival, int cores, double work, double sensitivity, String profile, PodClass podClass,
                   boolean declaresEco, int gpus, double activity) {
        this(id, arrival, cores, work, sensitivity, profile, podClass, declaresEco, gpus, activity,
                prefersEco(profile, declaresEco));
    }

    /** A job that keeps every requested core busy. */
    public JobSpec(int id, double arrival, int cores, double work, double sensitivity, String profile, PodClass podClass,
                   boolean declaresEco, int gpus) {
        this(id, arrival, cores, work, sensitivity, profile, podClass, declaresEco, gpus, 1);
    }

    /** The same job with another activity. */
    public JobSpec withActivity(double activity) {
        return activity == this.activity ? this
                : new JobSpec(id, arrival, cores, work, sensitivity, profile, podClass, declaresEco, gpus, activity, prefersEco);
    }

    public static JobSpec of(int id, double arrival, int cores, double work, double sensitivity, String profile) {
        return of(id, arrival, cores, work, sensitivity, profile, false);
    }

    public static JobSpec of(int id, double arrival, int cores, double work, double sensitivity, String profile,
                             boolean declaresEco) {
        return of(id, arrival, cores, 0, work, sensitivity, profile, declaresEco);
    }

    /** A job of {@code gpus} boards (0: a CPU job). */
    public static JobSpec of(int id, double arrival, int cores, int gpus, double work, double sensitivity, String profile,
                             boolean declaresEco) {
        return new JobSpec(id, arrival, cores, work, sensitivity, profile, PodClassifier.classify(podSpec(profile)),
                PodClassifier.declaresEco(metadata(declaresEco)), gpus);
    }

    /** Whether it needs GPU boards. */
    public boolean usesGpus() {
        return gpus > 0;
    }

    /** The metadata the job's pod carries: the workload-class annotation when it declares eco. */
    public static ObjectMeta metadata(boolean declaresEco) {
        ObjectMetaBuilder b = new ObjectMetaBuilder();
        if (declaresEco) {
            b.addToAnnotations(JoulieApi.WORKLOAD_CLASS_ANNOTATION, JoulieApi.WORKLOAD_CLASS_ECO);
        }
        return b.build();
    }

    /** The pod the job would be submitted with, before admission: {@link #metadata} and {@link #podSpec}. */
    public static Pod pod(String profile, boolean declaresEco) {
        return new PodBuilder().withMetadata(metadata(declaresEco)).withSpec(podSpec(profile)).build();
    }

    /**
     * Whether a job's pod prefers eco nodes once the operator's admission webhook applied {@link EcoPlacement} to it (the
     * one rule the twin and the operator share): it declares eco and does not name a power profile itself.
     */
    public static boolean prefersEco(String profile, boolean declaresEco) {
        return PREFERS_ECO.computeIfAbsent(profile + "/" + declaresEco,
                k -> EcoPlacement.prefersEco(EcoPlacement.apply(pod(profile, declaresEco)).getSpec()));
    }

    /** The pod spec the job would be submitted with. */
    public static PodSpec podSpec(String profile) {
        PodSpecBuilder b = new PodSpecBuilder();
        if (profile != null) {
            b.withNodeSelector(Map.of(JoulieApi.POWER_PROFILE_LABEL, profile));
        }
        return b.build();
    }

    /** {@code sim/job-000042}: zero-padded so that name order is id order. */
    public String podName() {
        return String.format("sim/job-%07d", id);
    }

    /** performance, eco or unconstrained. */
    public String className() {
        return podClass.name().toLowerCase(java.util.Locale.ROOT);
    }
}
