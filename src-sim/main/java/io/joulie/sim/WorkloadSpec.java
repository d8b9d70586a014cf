package io.joulie.sim;

import static io.joulie.sim.SimConfig.require;

/**
 * The job generator's parameters (see {@link Params} for each one's meaning).
 */
public record WorkloadSpec(int jobs, double horizonSeconds, double meanInterarrivalSeconds, double diurnalAmplitude,
                           int coresMin, int coresMax, double workMin, double workMax, double sensitivityMin,
                           double sensitivityMax, double memoryBoundShare, double memoryBoundSensitivityMin,
                           double memoryBoundSensitivityMax, double declaredShare, double performanceShare, double ecoShare,
                           double gpuShare, int gpusMin, int gpusMax, double gpuWorkMin, double gpuWorkMax,
                           double gpuSensitivityMin, double gpuSensitivityMax, long seed, String trace,
                           double activityMin, double activityMax) {

    public WorkloadSpec {
        require(jobs >= 0 && horizonSeconds >= 0, "workload.jobs and workload.horizonSeconds must be ≥ 0");
        require(jobs > 0 || horizonSeconds > 0 || !trace.isEmpty(),
                "set workload.jobs or workload.horizonSeconds (both 0 would generate forever)");
        require(meanInterarrivalSeconds > 0, "workload.meanInterarrivalSeconds must be > 0");
        require(diurnalAmplitude >= 0 && diurnalAmplitude <= 1, "workload.diurnalAmplitude must be in [0, 1]");
        require(coresMin >= 1 && coresMax >= coresMin, "need 1 ≤ workload.coresMin ≤ workload.coresMax");
        require(workMin > 0 && workMax >= workMin, "need 0 < workload.workMin ≤ workload.workMax");
        require(sensitivityMin >= 0 && sensitivityMax <= 1 && sensitivityMax >= sensitivityMin,
                "need 0 ≤ workload.sensitivityMin ≤ workload.sensitivityMax ≤ 1");
        require(memoryBoundShare >= 0 && memoryBoundShare <= 1, "workload.memoryBoundShare must be within [0, 1]");
        require(memoryBoundSensitivityMin >= 0 && memoryBoundSensitivityMax <= 1 && memoryBoundSensitivityMax >= memoryBoundSensitivityMin,
                "need 0 ≤ workload.memoryBoundSensitivityMin ≤ workload.memoryBoundSensitivityMax ≤ 1");
        require(declaredShare >= 0 && declaredShare <= 1, "workload.declaredShare must be within [0, 1]");
        require(gpuShare >= 0 && gpuShare <= 1, "workload.gpuShare must be within [0, 1], got " + gpuShare);
        require(gpusMin >= 1 && gpusMax >= gpusMin, "need 1 ≤ workload.gpusMin ≤ workload.gpusMax, got " + gpusMin + " and " + gpusMax);
        require(gpuWorkMin > 0 && gpuWorkMax >= gpuWorkMin, "need 0 < workload.gpuWorkMin ≤ workload.gpuWorkMax");
        require(gpuSensitivityMin >= 0 && gpuSensitivityMax <= 1 && gpuSensitivityMax >= gpuSensitivityMin,
                "need 0 ≤ workload.gpuSensitivityMin ≤ workload.gpuSensitivityMax ≤ 1");
        require(activityMin > 0 && activityMax <= 1 && activityMax >= activityMin,
                "need 0 < workload.activityMin ≤ workload.activityMax ≤ 1, got " + activityMin + " and " + activityMax);
        require(performanceShare >= 0 && ecoShare >= 0 && performanceShare + ecoShare <= 1,
                "workload.performanceShare + workload.ecoShare must be within [0, 1]");
    }
}
