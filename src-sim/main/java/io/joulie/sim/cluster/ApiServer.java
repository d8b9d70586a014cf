package io.joulie.sim.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.ServerSideApplyDispatcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The API server cluster mode runs on: the embedded fabric8 mock server (crud mode, with server-side apply as
 * {@link ServerSideApplyDispatcher} emulates it), or the one of a kubeconfig
 * file (a real cluster). Holds the twin's client and installs Joulie's CRDs where they are missing.
 */
final class ApiServer implements AutoCloseable {
    /** The mock server logs every request at INFO; kept referenced so the level sticks. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
    private static final List<String> CRDS = List.of("10-crd-nodepowerprofiles.joulie.io.yml", "10-crd-telemetryprofiles.joulie.io.yml",
            "10-crd-nodehardwares.joulie.io.yml", "10-crd-joulies.joulie.io.yml");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final KubernetesMockServer embedded;
    private final Path kubeconfig;
    private final KubernetesClient client;

    private ApiServer(KubernetesMockServer embedded, Path kubeconfig, KubernetesClient client) {
        this.embedded = embedded;
        this.kubeconfig = kubeconfig;
        this.client = client;
    }

    /** The embedded server ({@code kubeconfig} null) or the one {@code kubeconfig} names. */
    static ApiServer start(Path kubeconfig) throws IOException {
        if (kubeconfig == null) {
            KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                    new KubernetesCrudDispatcher(), true);
            server.init();
            ServerSideApplyDispatcher.install(server); // the operator and the agent write with server-side apply
            return new ApiServer(server, null, server.createClient());
        }
        return new ApiServer(null, kubeconfig,
                new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build());
    }

    KubernetesClient client() {
        return client;
    }

    /** Whether the twin started this server (and so owns everything on it). */
    boolean embedded() {
        return embedded != null;
    }

    /** How the operator and the agent reach this server. */
    Map<String, String> environment() {
        return embedded != null ? JavaApp.apiServer(embedded.url("/")) : JavaApp.kubeconfig(kubeconfig);
    }

    /** Creates Joulie's CRDs (packaged with the twin) unless they exist: an installed Joulie's are used as they are. */
    void installCrds() throws IOException {
        for (String crd : CRDS) {
            try (InputStream in = ApiServer.class.getResourceAsStream("/crds/" + crd)) {
                if (in == null) {
                    throw new IllegalStateException("CRD " + crd + " is not packaged with the simulator");
                }
                var definition = client.apiextensions().v1().customResourceDefinitions().load(in).item();
                if (client.resource(definition).get() == null) {
                    client.resource(definition).create();
                }
            }
        }
    }

    @Override
    public void close() {
        client.close();
        if (embedded != null) {
            embedded.destroy();
        }
    }
}
