package io.joulie.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The workload: generated from a seed (exponential inter-arrival times, optionally modulated by a daily
 * sine through thinning) or read from a JSON-lines trace.
 */
public final class Workload {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Workload() {
    }

    /** The spec's jobs: the trace when one is named, else generated. */
    public static List<JobSpec> of(WorkloadSpec spec) {
        return spec.trace().isEmpty() ? generate(spec) : readTrace(Path.of(spec.trace()));
    }

    /** Seeded generation: the same spec gives the same jobs. */
    public static List<JobSpec> generate(WorkloadSpec spec) {
        SplittableRandom rnd = new SplittableRandom(spec.seed());
        double peakRate = (1.0 + spec.diurnalAmplitude()) / spec.meanInterarrivalSeconds();
        List<JobSpec> jobs = new ArrayList<>();
        double t = 0;
        while (spec.jobs() == 0 || jobs.size() < spec.jobs()) {
            t += -Math.log(1.0 - rnd.nextDouble()) / peakRate;
            if (spec.horizonSeconds() > 0 && t > spec.horizonSeconds()) {
                break;
            }
            double accept = (1.0 + spec.diurnalAmplitude() * Math.sin(2 * Math.PI * (t / 86_400.0 - 0.25)))
                    / (1.0 + spec.diurnalAmplitude());
            if (rnd.nextDouble() >= accept) {
                continue;
            }
            int cores = rnd.nextInt(spec.coresMin(), spec.coresMax() + 1);
            double work = uniform(rnd, spec.workMin(), spec.workMax());
            // memory-bound or compute-bound: a draw only when the workload mixes them (seeded runs of one kind unchanged)
            boolean memoryBound = spec.memoryBoundShare() > 0 && rnd.nextDouble() < spec.memoryBoundShare();
            double sensitivity = memoryBound ? uniform(rnd, spec.memoryBoundSensitivityMin(), spec.memoryBoundSensitivityMax())
                    : uniform(rnd, spec.sensitivityMin(), spec.sensitivityMax());
            // the owners of some memory-bound jobs declare them (a draw only when some do)
            boolean declares = memoryBound && spec.declaredShare() > 0 && rnd.nextDouble() < spec.declaredShare();
            double c = rnd.nextDouble();
            String profile = c < spec.performanceShare() ? "performance"
                    : c < spec.performanceShare() + spec.ecoShare() ? "eco" : null;
            // a GPU job: a draw only when the workload has them (seeded CPU-only runs unchanged); its boards, its work in
            // board-seconds and its sensitivity to the boards' clock replace the CPU draws, and it declares nothing
            if (spec.gpuShare() > 0 && rnd.nextDouble() < spec.gpuShare()) {
                int gpus = rnd.nextInt(spec.gpusMin(), spec.gpusMax() + 1);
                JobSpec g = JobSpec.of(jobs.size(), t, cores, gpus, uniform(rnd, spec.gpuWorkMin(), spec.gpuWorkMax()),
                        uniform(rnd, spec.gpuSensitivityMin(), spec.gpuSensitivityMax()), profile, false);
                jobs.add(g.withActivity(activity(rnd, spec)));
                continue;
            }
            JobSpec j = JobSpec.of(jobs.size(), t, cores, work, sensitivity, profile, declares && profile == null);
            jobs.add(j.withActivity(activity(rnd, spec)));
        }
        return List.copyOf(jobs);
    }

    /** A job's activity: a draw only when some jobs use less than they request (seeded runs of full use unchanged). */
    private static double activity(SplittableRandom rnd, WorkloadSpec spec) {
        return spec.activityMin() < 1 ? uniform(rnd, spec.activityMin(), spec.activityMax()) : 1;
    }

    private static double uniform(SplittableRandom rnd, double min, double max) {
        return max > min ? rnd.nextDouble(min, max) : min;
    }

    /**
     * Reads a trace: one JSON object per line, {@code {"arrival": s, "cores": n, "work": core-seconds,
     * "sensitivity": 0..1, "class": "performance"|"eco"|"unconstrained", "workloadClass": "eco", "gpus": n}}
     * ({@code workloadClass} optional: the pod declares eco; {@code gpus} optional, 0 by default: a GPU job's work is in
     * board-seconds and its sensitivity is to its boards' clock); blank lines and lines starting with {@code #} are skipped. Jobs are ordered by arrival (stable), then numbered.
     */
    public static List<JobSpec> readTrace(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + file + ": " + e.getMessage(), e);
        }
        List<JobSpec> raw = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = file + ":" + (i + 1) + ": ";
            try {
                raw.add(parse(JSON.readTree(line), where));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(where + "not a JSON object: " + e.getOriginalMessage(), e);
            }
        }
        if (raw.isEmpty()) {
            throw new IllegalArgumentException("trace " + file + " has no jobs");
        }
        raw.sort(Comparator.comparingDouble(JobSpec::arrival));
        List<JobSpec> jobs = new ArrayList<>(raw.size());
        for (JobSpec j : raw) {
            jobs.add(JobSpec.of(jobs.size(), j.arrival(), j.cores(), j.gpus(), j.work(), j.sensitivity(), j.profile(), j.declaresEco())
                    .withActivity(j.activity()));
        }
        return List.copyOf(jobs);
    }

    private static JobSpec parse(JsonNode n, String where) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException(where + "expected a JSON object");
        }
        double arrival = number(n, "arrival", where);
        double cores = number(n, "cores", where);
        double work = number(n, "work", where);
        double sensitivity = n.has("sensitivity") ? number(n, "sensitivity", where) : 1.0;
        double gpus = n.has("gpus") ? number(n, "gpus", where) : 0;
        double activity = n.has("activity") ? number(n, "activity", where) : 1.0;
        if (arrival < 0 || cores < 1 || cores != Math.rint(cores) || work <= 0 || sensitivity < 0 || sensitivity > 1
                || gpus < 0 || gpus != Math.rint(gpus) || activity <= 0 || activity > 1) {
            throw new IllegalArgumentException(where + "need arrival ≥ 0, whole cores ≥ 1, work > 0, sensitivity in [0, 1], "
                    + "whole gpus ≥ 0, activity in (0, 1]");
        }
        String cls = n.path("class").asText("unconstrained");
        String profile = switch (cls) {
            case "performance", "eco" -> cls;
            case "unconstrained" -> null;
            default -> throw new IllegalArgumentException(where + "class must be performance, eco or unconstrained, got '" + cls + "'");
        };
        String declared = n.path("workloadClass").asText("");
        if (!declared.isEmpty() && !declared.equals(io.joulie.api.v1alpha1.JoulieApi.WORKLOAD_CLASS_ECO)) {
            throw new IllegalArgumentException(where + "workloadClass must be eco (or absent), got '" + declared + "'");
        }
        return new JobSpec(0, arrival, (int) cores, work, sensitivity, profile, null, !declared.isEmpty(), (int) gpus, activity);
    }

    private static double number(JsonNode n, String field, String where) {
        JsonNode v = n.get(field);
        if (v == null || !v.isNumber()) {
            throw new IllegalArgumentException(where + "'" + field + "' must be a number");
        }
        return v.asDouble();
    }
}
