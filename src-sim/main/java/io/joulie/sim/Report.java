package io.joulie.sim;

import io.joulie.api.v1alpha1.Profile;
import io.joulie.planner.PodClass;
import org.knowm.xchart.BitmapEncoder;
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

    static String summaryCsv(Comparison c) {
        StringBuilder sb = new StringBuilder("baseline,policy,window_s,window_energy_kwh,window_energy_delta_pct,energy_kwh,energy_delta_pct,jobs_total,jobs_completed,"
                + "makespan_s,mean_completion_s,mean_completion_performance_s,p95_completion_performance_s,"
                + "mean_completion_eco_s,mean_completion_unconstrained_s,performance_slowdown,violation_s,evictions,"
                + "transitions,planner_ticks,wall_ms\n");
        for (RunResult r : c.results().values()) {
            Baseline b = r.baseline();
            sb.append(String.join(",", b.name(), b.title(), num(c.windowSeconds()),
                    num(r.energyKWhAt(c.windowSeconds())), num(c.windowEnergyDeltaPercent(b)), num(r.energyKWh()), num(c.energyDeltaPercent(b)),
                    String.valueOf(r.jobsTotal()), String.valueOf(r.jobsCompleted()), num(r.makespanSeconds()),
                    num(RunResult.mean(r.allCompletionTimes())), num(r.meanCompletion(PodClass.PERFORMANCE)),
                    num(RunResult.quantile(r.completionTimes().get(PodClass.PERFORMANCE), 0.95)),
                    num(r.meanCompletion(PodClass.ECO)), num(r.meanCompletion(PodClass.UNCONSTRAINED)),
                    num(c.performanceSlowdown(b)), num(r.violationSeconds()), String.valueOf(r.evictions()),
                    String.valueOf(r.transitions()), String.valueOf(r.ticks()), String.valueOf(r.wallMillis())))
                    .append('\n');
        }
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

    static String markdown(Comparison c) {
        SimConfig cfg = c.config();
        StringBuilder sb = new StringBuilder();
        sb.append("# Joulie digital twin: ").append(c.name()).append("\n\n");
        sb.append(String.format(Locale.ROOT, "%d nodes, %d jobs, caps %s / %s, static fraction %s, queue-aware %s / %d / %d / %d.%n%n",
                cfg.nodes(), c.get(Baseline.A).jobsTotal(), cap(cfg.planner().caps(Profile.PERFORMANCE).cpu()),
                cap(cfg.planner().caps(Profile.ECO).cpu()), num(cfg.planner().staticHpFrac()), num(cfg.planner().queueHpBaseFrac()),
                cfg.planner().queueHpMin(), cfg.planner().queueHpMax(), cfg.planner().queuePerfPerHpNode()));
        sb.append("**Headline.** ").append(c.headline()).append(".\n\n");
        sb.append("| baseline | energy in window (kWh) | vs A | energy to finish (kWh) | vs A | jobs done | makespan (h) | mean completion (min): all / perf / eco / unconstr. | perf p95 (min) | perf slowdown | violations (s) | transitions |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
        for (RunResult r : c.results().values()) {
            Baseline b = r.baseline();
            sb.append(String.format(Locale.ROOT, "| %s %s | %.2f | %+.1f %% | %.2f | %+.1f %% | %d / %d | %.2f | %.1f / %.1f / %.1f / %.1f | %.1f | %.2fx | %.0f | %d |%n",
                    b, b.title(), r.energyKWhAt(c.windowSeconds()), c.windowEnergyDeltaPercent(b), r.energyKWh(),
                    c.energyDeltaPercent(b), r.jobsCompleted(), r.jobsTotal(),
                    r.makespanSeconds() / 3600, RunResult.mean(r.allCompletionTimes()) / 60,
                    r.meanCompletion(PodClass.PERFORMANCE) / 60, r.meanCompletion(PodClass.ECO) / 60,
                    r.meanCompletion(PodClass.UNCONSTRAINED) / 60,
                    RunResult.quantile(r.completionTimes().get(PodClass.PERFORMANCE), 0.95) / 60,
                    c.performanceSlowdown(b), r.violationSeconds(), r.transitions()).replace("NaN", "–"));
        }
        sb.append(String.format(Locale.ROOT, "%nEnergy in window: all nodes from t = 0 to %.2f h, when the first run "
                + "finished its last job (every run is busy until then: the power saved on the same work). "
                + "Energy to finish: from t = 0 until the run's own last job finished (includes the cost of slower jobs). ",
                c.windowSeconds() / 3600));
        sb.append("Violations: seconds a performance-only job ran on a node whose applied cap was the eco cap.\n\n");
        for (String f : FILES) {
            if (f.endsWith(".png")) {
                sb.append("![").append(f).append("](").append(f).append(")\n");
            }
        }
        return sb.toString();
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
        XYChart chart = chart("Nodes by state (B solid, C dashed)", "time (h)", "nodes");
        for (Baseline b : List.of(Baseline.B, Baseline.C)) {
            List<RunResult.Sample> s = c.get(b).series();
            double[] x = s.stream().mapToDouble(v -> v.t() / 3600).toArray();
            List<XYSeries> added = new ArrayList<>();
            added.add(line(chart, b + " ActivePerformance", x, s.stream().mapToDouble(RunResult.Sample::performanceNodes).toArray()));
            added.add(line(chart, b + " DrainingPerformance", x, s.stream().mapToDouble(RunResult.Sample::drainingNodes).toArray()));
            added.add(line(chart, b + " ActiveEco", x, s.stream().mapToDouble(RunResult.Sample::ecoNodes).toArray()));
            for (XYSeries series : added) {
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
                if (b == Baseline.C) {
                    series.setLineStyle(new java.awt.BasicStroke(2f, java.awt.BasicStroke.CAP_BUTT,
                            java.awt.BasicStroke.JOIN_MITER, 10f, new float[]{6f, 4f}, 0f));
                }
            }
        }
        save(chart, file);
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
