package io.joulie.operator.telemetry;

/** A {@link SyntheticExporter} and a real {@link PrometheusServer} scraping it: the fixture of the telemetry tests. */
public record ScrapedPrometheus(SyntheticExporter exporter, PrometheusServer server) implements AutoCloseable {

    public static ScrapedPrometheus start() throws Exception {
        SyntheticExporter exporter = new SyntheticExporter();
        try {
            return new ScrapedPrometheus(exporter, new PrometheusServer(exporter.target()).start());
        } catch (Exception | Error e) {
            exporter.close();
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            server.close();
        } finally {
            exporter.close();
        }
    }
}
