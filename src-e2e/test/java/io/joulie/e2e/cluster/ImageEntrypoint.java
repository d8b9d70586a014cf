package io.joulie.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.joulie.e2e.image.JoulieImage;
import io.joulie.e2e.image.OciArchive;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a container image starts its application, read from the image the build wrote (its OCI archive's
 * configuration): the JVM options of its entrypoint and its environment. The entrypoint is written in one place, the
 * application module's pom.xml (jib-maven-plugin), and Jib copies it into the image; tests that run the jars
 * "as the image does" take it from here.
 */
final class ImageEntrypoint {
    /**
     * The option naming the image's ahead-of-time cache (decision 177): a cache of the image's own runtime and jars,
     * which a JVM started on the host with the jars of target/ could not use.
     */
    static final String AOT_CACHE = "-XX:AOTCache=";
    /** Variables that locate the image's own runtime (/opt/java/openjdk): meaningless for a JVM started on the host. */
    static final Set<String> RUNTIME_LOCATION = Set.of("PATH", "JAVA_HOME");

    private ImageEntrypoint() {
    }

    /** The arguments between {@code java} and {@code -jar} of the image's entrypoint, less its {@link #AOT_CACHE}. */
    static List<String> jvmOptions(JoulieImage image) throws IOException {
        return jvmOptions(config(image), image.tarball(RealCluster.REPO).toString());
    }

    /** The variables the image sets for the application: its {@code Env} less {@link #RUNTIME_LOCATION}. */
    static Map<String, String> environment(JoulieImage image) throws IOException {
        return environment(config(image));
    }

    private static JsonNode config(JoulieImage image) throws IOException {
        return OciArchive.readMetadata(image.tarball(RealCluster.REPO)).config();
    }

    static List<String> jvmOptions(JsonNode config, String where) {
        List<String> args = new ArrayList<>();
        config.path("config").path("Entrypoint").forEach(a -> args.add(a.asText()));
        int jar = args.indexOf("-jar");
        if (args.isEmpty() || !(args.getFirst().equals("java") || args.getFirst().endsWith("/bin/java")) || jar < 0) {
            throw new IllegalStateException(where + ": the entrypoint does not run java ... -jar: " + args);
        }
        return args.subList(1, jar).stream().filter(o -> !o.startsWith(AOT_CACHE)).toList();
    }

    static Map<String, String> environment(JsonNode config) {
        Map<String, String> env = new LinkedHashMap<>();
        config.path("config").path("Env").forEach(e -> {
            String[] kv = e.asText().split("=", 2);
            if (!RUNTIME_LOCATION.contains(kv[0])) {
                env.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        });
        return env;
    }
}
