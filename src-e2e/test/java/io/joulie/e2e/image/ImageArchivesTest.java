package io.joulie.e2e.image;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The images `./mvnw package` writes (src/target/joulie-operator-image.tar, src-agent/target/joulie-agent-image.tar;
 * pom.xml, jib-maven-plugin on the base of hack/image-base/build.sh), opened as a container runtime would: a valid
 * OCI layout whose digests hold, the name the install manifests use, the entrypoint written in the module's pom,
 * user 1001, and a file tree of the Quarkus fast-jar at /deployments on a Java runtime at /opt/java/openjdk with its
 * dynamic loader (the base assembled here; a release base is not checked file by file). Runs in src-e2e's test
 * phase, after both application modules are packaged.
 */
class ImageArchivesTest {
    static final Path REPO = Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
    static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";
    static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    static final String OCI_CONFIG = "application/vnd.oci.image.config.v1+json";
    static final String OCI_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String LOADER = "lib64/ld-linux-x86-64.so.2";
    static final String JAVA = "opt/java/openjdk/bin/java";
    /** The ahead-of-time cache the training run wrote (pom.xml, io.joulie.testkit.AotTraining, decision 177). */
    static final String AOT_CACHE = "deployments/app.aot";

    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void anOciLayoutWhoseDigestsHoldNamedAsTheInstallNamesIt(JoulieImage image) throws IOException {
        OciArchive oci = OciArchive.read(image.tarball(REPO));
        assertThat(oci.json("oci-layout").path("imageLayoutVersion").asText()).isEqualTo("1.0.0");
        JsonNode index = oci.index();
        assertThat(index.path("schemaVersion").asInt()).isEqualTo(2);
        assertThat(index.path("mediaType").asText()).isEqualTo(OCI_INDEX);
        assertThat(index.path("manifests")).hasSize(1);
        JsonNode descriptor = index.path("manifests").get(0);
        assertThat(descriptor.path("mediaType").asText()).isEqualTo(OCI_MANIFEST);
        // ctr images import and skopeo take the name from this annotation (docs/install.md, "Building the images")
        assertThat(descriptor.path("annotations").path("org.opencontainers.image.ref.name").asText())
                .isEqualTo(image.reference());

        // every blob is named by the digest of its bytes, and every descriptor gives that digest and size
        List<String> blobs = oci.names().stream().filter(n -> n.startsWith("blobs/")).toList();
        for (String blob : blobs) {
            assertThat(OciArchive.blob(OciArchive.sha256(oci.bytes(blob)))).as("digest of %s", blob).isEqualTo(blob);
        }
        assertDescribes(oci, descriptor);
        JsonNode manifest = oci.manifest();
        assertThat(manifest.path("schemaVersion").asInt()).isEqualTo(2);
        assertThat(manifest.path("mediaType").asText()).isEqualTo(OCI_MANIFEST);
        assertThat(manifest.path("config").path("mediaType").asText()).isEqualTo(OCI_CONFIG);
        assertDescribes(oci, manifest.path("config"));
        JsonNode config = oci.config();
        List<String> diffIds = new ArrayList<>();
        config.path("rootfs").path("diff_ids").forEach(d -> diffIds.add(d.asText()));
        assertThat(config.path("rootfs").path("type").asText()).isEqualTo("layers");
        assertThat(manifest.path("layers")).hasSameSizeAs(diffIds).isNotEmpty();
        Set<String> referenced = new TreeSet<>();
        referenced.add(OciArchive.blob(descriptor.path("digest").asText()));
        referenced.add(OciArchive.blob(manifest.path("config").path("digest").asText()));
        for (int i = 0; i < diffIds.size(); i++) {
            JsonNode layer = manifest.path("layers").get(i);
            assertThat(layer.path("mediaType").asText()).isEqualTo(OCI_LAYER);
            assertDescribes(oci, layer);
            assertThat(oci.layer(layer.path("digest").asText(), e -> { })).as("diff_id of layer %d", i).isEqualTo(diffIds.get(i));
            referenced.add(OciArchive.blob(layer.path("digest").asText()));
        }
        assertThat(new TreeSet<>(blobs)).as("blobs, each referenced").isEqualTo(referenced);
        assertThat(config.path("os").asText()).isEqualTo("linux");
        assertThat(config.path("architecture").asText()).isEqualTo("amd64");
    }

    static void assertDescribes(OciArchive oci, JsonNode descriptor) {
        String blob = OciArchive.blob(descriptor.path("digest").asText());
        assertThat(oci.names()).as("blobs").contains(blob);
        assertThat(oci.size(blob)).as("size of %s", blob).isEqualTo(descriptor.path("size").asLong());
    }

    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void startsTheEntrypointOfItsPomAsUser1001InDeployments(JoulieImage image) throws Exception {
        JsonNode config = OciArchive.readMetadata(image.tarball(REPO)).config().path("config");
        List<String> entrypoint = new ArrayList<>();
        config.path("Entrypoint").forEach(a -> entrypoint.add(a.asText()));
        assertThat(entrypoint).as("the entrypoint of %s", image.pom(REPO)).isEqualTo(pomEntrypoint(image.pom(REPO)));
        assertThat(entrypoint).startsWith("java").endsWith("-jar", "/deployments/quarkus-run.jar");
        assertThat(config.path("Cmd").isMissingNode() || config.path("Cmd").isNull() || config.path("Cmd").isEmpty()).isTrue();
        assertThat(config.path("User").asText()).isEqualTo("1001");
        assertThat(config.path("WorkingDir").asText()).isEqualTo("/deployments");
        List<String> ports = new ArrayList<>();
        config.path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        assertThat(ports).containsExactlyInAnyOrder("8080/tcp", "9000/tcp");
        Map<String, String> env = new LinkedHashMap<>();
        config.path("Env").forEach(e -> env.put(e.asText().split("=", 2)[0], e.asText().split("=", 2)[1]));
        assertThat(env).containsEntry("MALLOC_ARENA_MAX", "2").containsEntry("JAVA_HOME", "/opt/java/openjdk");
        // `java` is found through PATH, as in the public eclipse-temurin images
        assertThat(env.get("PATH")).startsWith("/opt/java/openjdk/bin:");
    }

    /**
     * The OCI labels (pom.xml, docs/releasing.md): the image's name and what it does, the release version (the tag the
     * install names), the commit (a development build says so), the source repository and the licence.
     */
    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void carriesTheOciLabels(JoulieImage image) throws Exception {
        JsonNode labels = OciArchive.readMetadata(image.tarball(REPO)).config().path("config").path("Labels");
        String prefix = "org.opencontainers.image.";
        assertThat(labels.path(prefix + "title").asText()).isEqualTo(image.reference().replaceAll("^.*/([^/:]+):.*$", "$1"));
        assertThat(labels.path(prefix + "description").asText()).startsWith("Joulie ");
        assertThat(labels.path(prefix + "version").asText()).isEqualTo(image.reference().replaceAll("^.*:", ""));
        assertThat(labels.path(prefix + "revision").asText()).matches("development|[0-9a-f]{40}");
        assertThat(labels.path(prefix + "source").asText()).isEqualTo("https://github.com/joulie-io/joulie");
        assertThat(labels.path(prefix + "licenses").asText()).isEqualTo("Apache-2.0");
    }

    /** The {@code <entrypoint>} of the module's jib-maven-plugin: the one place it is written. */
    static List<String> pomEntrypoint(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        NodeList entrypoints = factory.newDocumentBuilder().parse(pom.toFile()).getElementsByTagName("entrypoint");
        assertThat(entrypoints.getLength()).as("<entrypoint> in %s", pom).isEqualTo(1);
        List<String> args = new ArrayList<>();
        NodeList children = entrypoints.item(0).getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element arg) {
                args.add(arg.getTextContent().strip());
            }
        }
        return args;
    }

    /** The image's files: each layer's entries, a later layer's entry replacing an earlier one of the same path. */
    static Map<String, OciArchive.Entry> files(JoulieImage image) throws IOException {
        OciArchive oci = OciArchive.read(image.tarball(REPO));
        Map<String, OciArchive.Entry> files = new TreeMap<>();
        for (JsonNode layer : oci.manifest().path("layers")) {
            oci.layer(layer.path("digest").asText(), e -> files.put(e.name(), e));
        }
        assertThat(files.keySet()).as("whiteouts (these images delete nothing)").noneMatch(n -> n.contains(".wh."));
        return files;
    }

    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void startsWithTheAheadOfTimeCacheItsTrainingRunAddedOnTop(JoulieImage image) throws Exception {
        OciArchive oci = OciArchive.read(image.tarball(REPO));
        JsonNode layers = oci.manifest().path("layers");
        List<String> top = new ArrayList<>();
        oci.layer(layers.get(layers.size() - 1).path("digest").asText(), e -> top.add(e.name()));
        assertThat(top).as("the top layer").containsExactly(AOT_CACHE);
        JsonNode history = oci.config().path("history");
        assertThat(history.get(history.size() - 1).path("comment").asText()).contains("training run");
        List<String> entrypoint = new ArrayList<>();
        oci.config().path("config").path("Entrypoint").forEach(a -> entrypoint.add(a.asText()));
        assertThat(entrypoint).contains("-XX:AOTCache=/" + AOT_CACHE);

        // the image's JVM opens the cache and uses its linked classes: it was trained with this runtime, these jars
        // (paths, sizes and times) and these options, or the JVM would say why it cannot use it and carry on without
        assertThat(Files.isWritable(Path.of("/root"))).as("hack/images/chroot-run.sh runs as root").isTrue();
        ProcessBuilder pb = new ProcessBuilder("bash", REPO.resolve("hack/images/chroot-run.sh").toString(),
                image.tarball(REPO).toString()).redirectErrorStream(true);
        // the JVM's account of the cache; the application is stopped after 8 s (it finds no cluster, or no node name)
        pb.environment().putAll(Map.of("RUN_ENV", "JAVA_TOOL_OPTIONS=-Xlog:aot=info", "TIMEOUT", "8s"));
        Process run = pb.start();
        run.getOutputStream().close();
        String output;
        try (var in = run.getInputStream()) {
            output = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        run.waitFor();
        assertThat(output).as(output).contains("Opened AOT cache /" + AOT_CACHE)
                .contains("Using AOT-linked classes: true").doesNotContain("[error][aot]").doesNotContain("[warning][aot]");
    }

    /** Whether the build used the base hack/image-base/build.sh assembles (not -Djoulie.image.base=…, a release). */
    static boolean localBase() {
        return System.getProperty("joulie.image.base", "").startsWith("tar://");
    }

    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void holdsTheFastJarAtDeployments(JoulieImage image) throws IOException {
        Map<String, OciArchive.Entry> files = files(image);
        assertThat(files.keySet().stream().filter(n -> n.startsWith("deployments/")).map(n -> n.split("/")[1]).distinct())
                .as("/deployments").containsExactlyInAnyOrder("lib", "app", "quarkus", "quarkus-run.jar", "app.aot");

        // /deployments is target/quarkus-app (its dependency list aside), file for file
        Path app = image.quarkusApp(REPO);
        Map<String, Long> expected = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(app)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                String relative = app.relativize(p).toString();
                if (!relative.equals("quarkus-app-dependencies.txt")) {
                    expected.put("deployments/" + relative, Files.size(p));
                }
            }
        }
        Map<String, Long> actual = new TreeMap<>();
        files.values().stream().filter(e -> e.name().startsWith("deployments/") && e.type() == OciArchive.Entry.FILE
                        && !e.name().equals(AOT_CACHE))
                .forEach(e -> actual.put(e.name(), e.size()));
        assertThat(actual).isEqualTo(expected);
        assertThat(files.get("deployments/quarkus-run.jar").mode()).isEqualTo(0644);
        assertThat(files.get(JAVA)).as("java where the entrypoint finds it, whichever the base").isNotNull();
    }

    @ParameterizedTest
    @EnumSource(JoulieImage.class)
    void theLocalBaseIsAJavaRuntimeWithItsLibrariesLoaderAndTmpAndNothingElse(JoulieImage image) throws IOException {
        assumeTrue(localBase(), "built on a release base (-Djoulie.image.base)");
        Map<String, OciArchive.Entry> files = files(image);
        assertThat(files.keySet().stream().map(n -> n.split("/")[0]).distinct())
                .as("top-level entries").containsExactlyInAnyOrder("deployments", "opt", "lib", "lib64", "tmp");

        OciArchive.Entry java = files.get(JAVA);
        assertThat(java).as(JAVA).isNotNull();
        assertThat(java.type()).isEqualTo(OciArchive.Entry.FILE);
        assertThat(java.mode()).as("mode of " + JAVA).isEqualTo(0755);
        OciArchive.Entry loader = files.get(LOADER);
        assertThat(loader).as(LOADER).isNotNull();
        assertThat(loader.type()).as("the loader is a real file").isEqualTo(OciArchive.Entry.FILE);
        assertThat(loader.mode()).isEqualTo(0755);
        // the libraries are real files; the only links are jlink's, between the runtime's license files
        assertThat(files.values()).as("hard links").noneMatch(e -> e.type() == OciArchive.Entry.HARD_LINK);
        for (OciArchive.Entry link : files.values().stream().filter(e -> e.type() == OciArchive.Entry.SYMLINK).toList()) {
            assertThat(link.name()).as("a symbolic link").startsWith("opt/java/openjdk/legal/");
            String target = Path.of(link.name()).resolveSibling(link.link()).normalize().toString();
            assertThat(files.get(target)).as("the target of %s", link.name()).isNotNull()
                    .extracting(OciArchive.Entry::type).isEqualTo(OciArchive.Entry.FILE);
        }
        assertThat(files.get("opt/java/openjdk/lib/server/libjvm.so").mode()).isEqualTo(0755);
        assertThat(files.get("lib/x86_64-linux-gnu/libc.so.6")).as("libc").isNotNull();
        assertThat(files.get("opt/java/openjdk/lib/modules")).as("the runtime's modules").isNotNull();
        OciArchive.Entry tmp = files.get("tmp");
        assertThat(tmp.type()).isEqualTo(OciArchive.Entry.DIRECTORY);
        assertThat(tmp.mode()).as("/tmp: writable by any user, sticky").isEqualTo(01777);
    }
}
