package io.joulie.sim;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.PodClass;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Writes a comparison to a directory: {@code summary.csv}, {@code timeseries.csv}, {@code report.md} and the
 * plots {@code cumulative-energy.png}, {@code power.png}, {@code nodes-by-state.png} and
 * {@code completion-times.png} (XChart, rendered headless).
 */
public final class Report {
    static final List<String> FILES = List.of("summary.csv", "timeseries.csv", "report.md", "cumulative-energy.png",
            "power.png", "nodes-by-state.png", "completion-times.png");
    private static final int CDF_POINTS = 400;

    private Report() {
    }

    /** Writes every file; returns the Markdown report's path. */
    public static Path write(Comparison c, Path dir) {
        System.setProperty("java.awt.headless", "true");
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("summary.csv"), summaryCsv(c));
            Files.writeString(dir.resolve("timeseries.csv"), timeseriesCsv(c));
            Files.writeString(dir.resolve("report.md"), markdown(c));
            plotSeries(c, dir.resolve("cumulative-energy.png"), "Cumulative energy", "kWh", RunResult.Sample::energyKWh);
            plotSeries(c, dir.resolve("power.png"), "Cluster power", "W", RunResult.Sample::powerWatts);
            plotStates(c, dir.resolve("nodes-by-state.png"));
            plotCompletion(c, dir.resolve("completion-times.png"));
            return dir.resolve("report.md");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The placement and parking runs over seeds: {@code targets.csv}, {@code targets.md} and {@code targets.png}. */
    static final List<String> TARGET_FILES = List.of("targets.csv", "targets.md", "targets.png");

    /** Writes {@link #TARGET_FILES}; returns the Markdown's path. */
    public static Path write(Targets t, Path dir) {
        System.setProperty("java.awt.headless", "true");
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("targets.csv"), t.csv());
            Files.writeString(dir.resolve("targets.md"), t.markdown() + "\n![targets.png](targets.png)\n");
            plotTargets(t, dir.resolve("targets.png"));
            return dir.resolve("targets.md");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the targets to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Per seed, the three savings the targets are about, in percent of A least-allocated's or A efficient-load's energy. */
    private static void plotTargets(Targets t, Path file) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(560)
                .title("Energy to finish vs all performance, per seed (" + t.scenario() + ")").xAxisTitle("seed")
                .yAxisTitle("% (negative = saved)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSW);
        List<String> seeds = t.seeds().keySet().stream().map(String::valueOf).toList();
        for (Targets.Target target : List.of(Targets.Target.JOULIE_VS_DEFAULT, Targets.Target.JOULIE_OWN_PART,
                Targets.Target.PARKING_VS_DEFAULT)) {
            chart.addSeries(target.title() + " (goal " + target.goal() + ")", seeds,
                    t.seeds().values().stream().map(target::of).toList());
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    static String summaryCsv(Comparison c) {
        StringBuilder sb = new StringBuilder("baseline,policy,energy_kwh,cpu_energy_kwh,gpu_energy_kwh,energy_delta_pct,"
                + "gap_to_bound_pp,gap_to_optimum_pp,"
                + "jobs_total,jobs_completed,makespan_s,mean_completion_s,mean_completion_performance_s,p95_completion_performance_s,"
                + "mean_completion_eco_s,mean_completion_unconstrained_s,performance_slowdown,eco_slowdown,unconstrained_slowdown,"
                + "overall_slowdown,violation_s,evictions,transitions,planner_ticks,window_s,window_energy_kwh,window_energy_delta_pct,"
                + "window_jobs_completed,parks,wakes,mean_parked_nodes,wall_ms,action_space\n");
        for (RunResult r : c.results().values()) {
            Baseline b = r.baseline();
            sb.append(String.join(",", b.name(), b.title(), num(r.energyKWh()), num(r.cpuEnergyKWh()), num(r.gpuEnergyKWh()),
                    num(c.energyDeltaPercent(b)),
                    num(c.gapToBound(b)), num(c.gapToOptimum(b)),
                    String.valueOf(r.jobsTotal()), String.valueOf(r.jobsCompleted()), num(r.makespanSeconds()),
                    num(RunResult.mean(r.allCompletionTimes())), num(r.meanCompletion(PodClass.PERFORMANCE)),
                    num(RunResult.quantile(r.completionTimes().get(PodClass.PERFORMANCE), 0.95)),
                    num(r.meanCompletion(PodClass.ECO)), num(r.meanCompletion(PodClass.UNCONSTRAINED)),
                    num(c.slowdown(b, PodClass.PERFORMANCE)), num(c.slowdown(b, PodClass.ECO)),
                    num(c.slowdown(b, PodClass.UNCONSTRAINED)), num(c.overallSlowdown(b)),
                    num(r.violationSeconds()), String.valueOf(r.evictions()), String.valueOf(r.transitions()),
                    String.valueOf(r.ticks()), num(c.windowSeconds()), num(r.energyKWhAt(c.windowSeconds())),
                    num(c.windowEnergyDeltaPercent(b)), String.valueOf(r.completedBy(c.windowSeconds())),
                    String.valueOf(r.parking().parks()), String.valueOf(r.parking().wakes()), num(r.parking().meanParked()),
                    String.valueOf(r.wallMillis()), quoted(c.actionSpace(b)))).append('\n');
        }
        List<String> bound = new ArrayList<>(List.of("LB", "lower bound", num(c.bound().kWh()),
                num(c.bound().kWh() - c.bound().gpuKWh()), num(c.bound().gpuKWh()), num(c.boundDeltaPercent()), "0",
                num(-c.gapToBound(Baseline.H)), String.valueOf(c.get(Baseline.A).jobsTotal()), "", num(c.bound().makespanLowerBound())));
        while (bound.size() < sb.substring(0, sb.indexOf("\n")).split(",").length - 1) {
            bound.add("");
        }
        bound.add(quoted(Comparison.BOUND_ACTION_SPACE + "; all time pooled"));
        sb.append(String.join(",", bound)).append('\n');
        List<String> time = new ArrayList<>(List.of("LBT", c.timeBound().solved() ? "time-indexed bound" : "time-indexed bound (not solved: θ)", num(c.timeBound().kWh()),
                num(c.timeBound().kWh() - c.timeBound().gpuKWh()), num(c.timeBound().gpuKWh()), num(c.timeBoundDeltaPercent()),
                num(-100.0 * (c.timeBound().kWh() - c.bound().kWh()) / c.get(Baseline.A).energyKWh()),
                num(-c.gapToTimeBound(Baseline.H)), String.valueOf(c.get(Baseline.A).jobsTotal()), "", num(c.bound().makespanLowerBound())));
        while (time.size() < bound.size() - 1) {
            time.add("");
        }
        time.add(quoted(String.format(Locale.ROOT, "%s; work after its arrival, node-time per %.0f-minute slot",
                Comparison.BOUND_ACTION_SPACE, c.timeBound().slotSeconds() / 60)));
        sb.append(String.join(",", time)).append('\n');
        return sb.toString();
    }

    static String timeseriesCsv(Comparison c) {
        StringBuilder sb = new StringBuilder("baseline,t_s,power_w,energy_kwh,active_performance,draining_performance,"
                + "active_eco,running_jobs,pending_jobs\n");
        for (RunResult r : c.results().values()) {
            for (RunResult.Sample s : r.series()) {
                sb.append(String.join(",", r.baseline().name(), num(s.t()), num(s.powerWatts()), num(s.energyKWh()),
                        String.valueOf(s.performanceNodes()), String.valueOf(s.drainingNodes()),
                        String.valueOf(s.ecoNodes()), String.valueOf(s.runningJobs()), String.valueOf(s.pendingJobs())))
                        .append('\n');
            }
        }
        return sb.toString();
    }

    /** A CPU cap as the report gives it: {@code 260 W} or {@code 60 %}. */
    static String cap(io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower cap) {
        return cap.packagePowerCapWatts() != null ? num(cap.packagePowerCapWatts()) + " W" : num(cap.packagePowerCapPercent()) + " %";
    }

    /** A GPU cap as the report gives it: {@code 300 W per board} or {@code 60 %}. */
    static String cap(io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower cap) {
        return cap.powerCapWattsPerGpu() != null ? num(cap.powerCapWattsPerGpu()) + " W per board" : num(cap.powerCapPercent()) + " %";
    }

    static String markdown(Comparison c) {
        SimConfig cfg = c.config();
        RunResult a = c.get(Baseline.A);
        StringBuilder sb = new StringBuilder();
        sb.append("# Joulie digital twin: ").append(c.name()).append("\n\n");
        sb.append(String.format(Locale.ROOT, "%d nodes (%s), %d jobs, caps %s / %s%s, static fraction %s, queue-aware %s / %d / %d / %d, "
                        + "demand headroom %s.%n%n",
                cfg.nodes(), types(cfg), a.jobsTotal(), cap(cfg.planner().caps(Profile.PERFORMANCE).cpu()),
                cap(cfg.planner().caps(Profile.ECO).cpu()), cfg.planner().ecoCapWattsByType().isEmpty() ? ""
                        : " (eco by type: " + String.join(", ", cfg.planner().ecoCapWattsByType().entrySet().stream()
                        .map(e -> e.getKey() + " " + num(e.getValue()) + " W").toList()) + ")",
                num(cfg.planner().staticHpFrac()), num(cfg.planner().queueHpBaseFrac()),
                cfg.planner().queueHpMin(), cfg.planner().queueHpMax(), cfg.planner().queuePerfPerHpNode(),
                num(cfg.planner().demandHeadroomFrac())));
        boolean gpus = cfg.nodeTypes().stream().anyMatch(NodeType::hasGpus);
        if (gpus) {
            sb.append(String.format(Locale.ROOT, "GPU caps %s / %s of each board (performance / eco); GPU nodes are tainted: "
                    + "only GPU jobs run there.%n%n", cap(cfg.planner().caps(Profile.PERFORMANCE).gpu()),
                    cap(cfg.planner().caps(Profile.ECO).gpu())));
        }
        sb.append("**Headline.** ").append(c.headline()).append(".\n\n");
        sb.append("## Energy to finish the same jobs\n\n");
        sb.append("| run | energy to finish (kWh) |" + (gpus ? " CPU parts / GPU boards (kWh) |" : "")
                + " vs A | gap to bound (pp) | gap to optimum (pp) | makespan (h) "
                + "| slowdown perf / eco / unconstr. / all | perf p95 (min) | violations (s) | transitions |\n");
        sb.append("|---|---:|" + (gpus ? "---:|" : "") + "---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (RunResult r : c.results().values()) {
            Baseline b = r.baseline();
            sb.append(String.format(Locale.ROOT, "| %s %s | %.2f |%s %s | %.1f | %.1f | %.2f | %s / %s / %s / %s | %.1f | %.0f | %d |%n",
                    b, b.title(), r.energyKWh(), gpus ? String.format(Locale.ROOT, " %.2f / %.2f |", r.cpuEnergyKWh(), r.gpuEnergyKWh()) : "",
                    b == Baseline.A ? "—" : String.format(Locale.ROOT, "%+.1f %%", c.energyDeltaPercent(b)),
                    c.gapToBound(b), c.gapToOptimum(b), r.makespanSeconds() / 3600,
                    ratio(c.slowdown(b, PodClass.PERFORMANCE)), ratio(c.slowdown(b, PodClass.ECO)),
                    ratio(c.slowdown(b, PodClass.UNCONSTRAINED)), ratio(c.overallSlowdown(b)),
                    RunResult.quantile(r.completionTimes().get(PodClass.PERFORMANCE), 0.95) / 60,
                    r.violationSeconds(), r.transitions()).replace("NaN", "–"));
        }
        sb.append(String.format(Locale.ROOT, "| lower bound (θ) | %.2f |%s %+.1f %% | 0 | %.1f | ≥ %.2f | | | | |%n",
                c.bound().kWh(), gpus ? String.format(Locale.ROOT, " %.2f / %.2f |", c.bound().kWh() - c.bound().gpuKWh(),
                        c.bound().gpuKWh()) : "", c.boundDeltaPercent(), -c.gapToBound(Baseline.H), c.bound().makespanLowerBound() / 3600));
        sb.append(String.format(Locale.ROOT, "| time-indexed lower bound%s | %.2f |%s %+.1f %% | %.1f | %.1f | ≥ %.2f | | | | |%n%n",
                c.timeBound().solved() ? "" : " (LP not solved in time: the θ bound)",
                c.timeBound().kWh(), gpus ? String.format(Locale.ROOT, " %.2f / %.2f |", c.timeBound().kWh() - c.timeBound().gpuKWh(),
                        c.timeBound().gpuKWh()) : "", c.timeBoundDeltaPercent(), 100.0 * (c.bound().kWh() - c.timeBound().kWh())
                        / a.energyKWh(), -c.gapToTimeBound(Baseline.H), c.bound().makespanLowerBound() / 3600));
        sb.append(bracket(c));
        sb.append("Energy to finish: every node from t = 0 until the run's own last job finished. Gaps are percentage points "
                + "of A's energy to finish. Slowdown: mean completion time of the class relative to A. Violations: seconds a "
                + "performance-only job ran on a node capped below the performance cap. ");
        sb.append(String.format(Locale.ROOT, "H, the hindsight optimum, is the best schedule (performance-node counts per "
                + "tick and node type, eco cap per type) found in %d runs of the twin knowing every job in advance (started from %s), "
                + "run through the operator's own eco selection and guard; U, the clairvoyant constructive schedule, is built greedily "
                + "from the future demand and run the same way. The lower bound (docs/simulation.md proves it) holds for any schedule "
                + "with the same caps (none, performance, eco), every node always on and no violation; per-job frequency and powering "
                + "nodes off are outside its action space, and outside H's and U's. The θ bound pools all time (it "
                + "may run every job at its most efficient load even at the peak); the time-indexed bound, same action space, is "
                + "an LP over %.0f-minute slots: each slot's node-time per type, work only after its arrival (its gap column is "
                + "to the θ bound).%n%n", c.optimum().evaluations(), c.optimum().seed(), c.timeBound().slotSeconds() / 60));
        sb.append(String.format(Locale.ROOT, "## Power saved while busy: a fixed horizon of %.2f h%n%n", c.windowSeconds() / 3600));
        sb.append("| run | energy in the horizon (kWh) | vs A | jobs finished in it | kWh per finished job | vs A |\n");
        sb.append("|---|---:|---:|---:|---:|---:|\n");
        double w = c.windowSeconds();
        double aPerJob = a.energyKWhAt(w) / a.completedBy(w);
        for (RunResult r : c.results().values()) {
            Baseline b = r.baseline();
            double perJob = r.energyKWhAt(w) / r.completedBy(w);
            sb.append(String.format(Locale.ROOT, "| %s %s | %.2f | %s | %d / %d | %.4f | %s |%n", b, b.title(), r.energyKWhAt(w),
                    b == Baseline.A ? "—" : String.format(Locale.ROOT, "%+.1f %%", c.windowEnergyDeltaPercent(b)),
                    r.completedBy(w), r.jobsTotal(), perJob,
                    b == Baseline.A ? "—" : String.format(Locale.ROOT, "%+.1f %%", 100 * (perJob / aPerJob - 1))));
        }
        sb.append(String.format(Locale.ROOT, "%nEvery node's energy from t = 0 to %.2f h, when the first run finished its last "
                + "job: every run is busy throughout, so this is the power saved while doing work, and the way Joulie's first "
                + "published figures and the Go Joulie's later ones (a fixed 60 simulated hours) compare policies. It is not "
                + "energy saved for the work: a run that is slower has finished fewer jobs when the horizon ends and still has "
                + "to spend the energy for the rest (see energy to finish above).%n%n", w / 3600));
        for (String f : FILES) {
            if (f.endsWith(".png")) {
                sb.append("![").append(f).append("](").append(f).append(")\n");
            }
        }
        return sb.toString();
    }

    /** The optimum bracketed: the lower bounds, the best feasible schedules, each with its action space. */
    static String bracket(Comparison c) {
        double a = c.get(Baseline.A).energyKWh();
        StringBuilder sb = new StringBuilder("## Bracketing the optimum\n\n| estimate | kind | energy to finish (kWh) | vs A | action space |\n"
                + "|---|---|---:|---:|---|\n");
        sb.append(String.format(Locale.ROOT, "| θ bound | lower bound | %.2f | %+.1f %% | %s; all time pooled |%n", c.bound().kWh(),
                c.boundDeltaPercent(), Comparison.BOUND_ACTION_SPACE));
        sb.append(String.format(Locale.ROOT, "| time-indexed bound%s | lower bound | %.2f | %+.1f %% | %s; work after its arrival, "
                        + "node-time per %.0f-minute slot |%n", c.timeBound().solved() ? "" : " (LP not solved in time: the θ bound)",
                c.timeBound().kWh(), c.timeBoundDeltaPercent(), Comparison.BOUND_ACTION_SPACE,
                c.timeBound().slotSeconds() / 60));
        for (Baseline b : List.of(Baseline.H, Baseline.U)) {
            sb.append(String.format(Locale.ROOT, "| %s %s | feasible schedule%s | %.2f | %+.1f %% | %s |%n", b, b.title(),
                    b == Baseline.H || c.constructive().acceptable() ? "" : " (NOT within the service level: no upper bound)", c.get(b).energyKWh(),
                    c.energyDeltaPercent(b), c.actionSpace(b)));
        }
        double low = Math.max(c.bound().kWh(), c.timeBound().kWh());
        double high = c.bestFeasibleKWh();
        sb.append(String.format(Locale.ROOT, "%nThe optimum over the bounds' action set lies between %.2f and %.2f kWh (%+.1f %% and "
                + "%+.1f %% of A): the best lower bound and the best feasible schedule found (H, U, or a policy that meets the service "
                + "level; all are inside that action set).%n%n",
                low, high, 100 * (low / a - 1), 100 * (high / a - 1)));
        return sb.toString();
    }

    private static String quoted(String text) {
        // no comma inside, so that a plain split by commas still finds every column
        return '"' + text.replace("\"", "'").replace(",", ";") + '"';
    }

    /** "dell-r640 60 %, dell-r940 40 %", or the one type's name. */
    private static String types(SimConfig cfg) {
        List<String> parts = new ArrayList<>();
        for (int t = 0; t < cfg.nodeTypes().size(); t++) {
            parts.add(cfg.nodeTypes().size() == 1 ? cfg.nodeTypes().get(t).name()
                    : String.format(Locale.ROOT, "%s %.0f %%", cfg.nodeTypes().get(t).name(), 100 * cfg.typeShares().get(t)));
        }
        return String.join(", ", parts);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2fx", v);
    }

    private static void plotSeries(Comparison c, Path file, String title, String unit,
                                   ToDoubleFunction<RunResult.Sample> value) throws IOException {
        XYChart chart = chart(title, "time (h)", unit);
        for (RunResult r : c.results().values()) {
            double[] x = r.series().stream().mapToDouble(s -> s.t() / 3600).toArray();
            double[] y = r.series().stream().mapToDouble(value).toArray();
            line(chart, r.baseline() + " " + r.baseline().title(), x, y);
        }
        save(chart, file);
    }

    private static void plotStates(Comparison c, Path file) throws IOException {
        XYChart chart = chart("Nodes by state (" + String.join(", ", dashes(c)) + ")", "time (h)", "nodes");
        List<Baseline> runs = c.compared();
        for (int k = 0; k < runs.size(); k++) {
            Baseline b = runs.get(k);
            List<RunResult.Sample> s = c.get(b).series();
            double[] x = s.stream().mapToDouble(v -> v.t() / 3600).toArray();
            List<XYSeries> added = new ArrayList<>();
            added.add(line(chart, b + " ActivePerformance", x, s.stream().mapToDouble(RunResult.Sample::performanceNodes).toArray()));
            added.add(line(chart, b + " DrainingPerformance", x, s.stream().mapToDouble(RunResult.Sample::drainingNodes).toArray()));
            added.add(line(chart, b + " ActiveEco", x, s.stream().mapToDouble(RunResult.Sample::ecoNodes).toArray()));
            for (XYSeries series : added) {
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
                if (k > 0) {
                    series.setLineStyle(new java.awt.BasicStroke(2f, java.awt.BasicStroke.CAP_BUTT,
                            java.awt.BasicStroke.JOIN_MITER, 10f, new float[]{6f * k, 4f}, 0f));
                }
            }
        }
        save(chart, file);
    }

    /** "B solid", "C dashed", "H long dashes", ... */
    private static List<String> dashes(Comparison c) {
        List<String> names = new ArrayList<>();
        List<Baseline> runs = c.compared();
        for (int k = 0; k < runs.size(); k++) {
            names.add(runs.get(k) + (k == 0 ? " solid" : k == 1 ? " dashed" : " longer dashes"));
        }
        return names;
    }

    private static void plotCompletion(Comparison c, Path file) throws IOException {
        XYChart chart = chart("Completion time distribution (CDF)", "completion time (min)", "share of jobs");
        for (RunResult r : c.results().values()) {
            for (boolean all : new boolean[]{false, true}) {
                double[] sorted = all ? r.allCompletionTimes() : r.completionTimes().get(PodClass.PERFORMANCE);
                if (sorted.length == 0) {
                    continue;
                }
                int points = Math.min(CDF_POINTS, sorted.length);
                double[] x = new double[points];
                double[] y = new double[points];
                for (int i = 0; i < points; i++) {
                    double q = (i + 1.0) / points;
                    x[i] = RunResult.quantile(sorted, q) / 60;
                    y[i] = q;
                }
                line(chart, r.baseline() + (all ? " all jobs" : " performance jobs"), x, y);
            }
        }
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
        save(chart, file);
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart chart = new XYChartBuilder().width(1000).height(560).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(0);
        return chart;
    }

    private static XYSeries line(XYChart chart, String name, double[] x, double[] y) {
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.NONE);
        return s;
    }

    private static void save(XYChart chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.4f", v);
    }
}
