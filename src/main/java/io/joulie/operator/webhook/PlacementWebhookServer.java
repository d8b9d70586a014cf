package io.joulie.operator.webhook;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorNamespace;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.SSLOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Serves the placement webhook ({@link PlacementAdmission}) over HTTPS on {@code joulie.webhook.port}, in every replica
 * (the API server may call any of them through the Service), with the certificate of {@link WebhookTls}. The
 * certificate is read or made at start-up and looked at again every {@link #RECHECK}: a replica serves the one in the
 * Secret, renewed there before it expires. If the Secret cannot be read or written, the failure is logged and tried
 * again at the next look; the rest of the operator runs on (the API server lets Pods through unchanged meanwhile,
 * under the default failure policy).
 */
@ApplicationScoped
public class PlacementWebhookServer {
    private static final Logger LOG = Logger.getLogger(PlacementWebhookServer.class);
    /** The path the API server posts AdmissionReviews to. */
    public static final String PATH = "/mutate-pods";
    /** The path the API server calls for Pods of namespaces whose default class is eco (decision 213). */
    public static final String NAMESPACE_DEFAULT_PATH = PATH + "/namespace-eco";
    static final Duration RECHECK = Duration.ofMinutes(10);
    static final int MAX_BODY = 3 * 1024 * 1024;

    private final OperatorConfig.Webhook config;
    private final WebhookTls tls;
    private final Vertx vertx;
    private final PlacementAdmission admission;
    private final Map<PlacementAdmission.Outcome, Counter> outcomes = new EnumMap<>(PlacementAdmission.Outcome.class);
    private final Counter errors;
    private ScheduledExecutorService worker;
    private volatile HttpServer server;
    private final java.util.List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Inject
    public PlacementWebhookServer(OperatorConfig config, KubernetesClient client, Vertx vertx, MeterRegistry registry, Clock clock) {
        this.config = config.webhook();
        String namespace = OperatorNamespace.of(client, config);
        this.tls = new WebhookTls(client, namespace, WebhookTls.names(this.config.service(), namespace, this.config.url()), clock);
        this.vertx = vertx;
        this.admission = new PlacementAdmission(client.getKubernetesSerialization());
        for (PlacementAdmission.Outcome o : PlacementAdmission.Outcome.values()) {
            outcomes.put(o, Counter.builder("joulie_webhook_admissions_total")
                    .description("Pod creations the placement webhook answered, by what it did: patched (the eco preference "
                            + "added), unchanged, unreadable (let through)")
                    .tag("outcome", o.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        this.errors = Counter.builder("joulie_webhook_errors_total")
                .description("Requests to the placement webhook refused as malformed, and failed looks at its certificate")
                .register(registry);
    }

    /**
     * The webhook configuration's {@code caBundle}: the certificate served, read or made now if this replica has none
     * yet (the reconciler may ask before the first look ran).
     *
     * @throws IllegalStateException when there is none and none can be read or made (the reconcile fails and is retried)
     */
    public String caBundle() {
        if (tls.caBundle().isEmpty()) {
            synchronized (this) {
                if (tls.caBundle().isEmpty()) {
                    look();
                }
            }
        }
        return tls.caBundle().orElseThrow(() -> new IllegalStateException("the placement webhook has no certificate yet "
                + "(Secret " + WebhookTls.SECRET + " could not be read or written: see the operator's log)"));
    }

    /** Called when the served certificate changes (a renewal), so that the configuration's caBundle follows. */
    public void onCertificateChange(Runnable listener) {
        listeners.add(listener);
    }

    void start(@Observes StartupEvent ev) {
        if (!config.enabled()) {
            LOG.info("placement webhook off (joulie.webhook.enabled=false)");
            return;
        }
        worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "joulie-webhook-tls");
            t.setDaemon(true);
            return t;
        });
        worker.execute(this::look);
        worker.scheduleWithFixedDelay(this::look, RECHECK.toMillis(), RECHECK.toMillis(), TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent ev) {
        if (worker != null) {
            worker.shutdownNow();
        }
        HttpServer s = server;
        if (s != null) {
            s.close();
        }
    }

    /** Reads or renews the certificate; starts serving with it, or serves the new one. */
    public synchronized void look() {
        try {
            boolean changed = tls.ensure();
            if (changed) {
                listeners.forEach(Runnable::run);
            }
            SelfSignedCertificate c = tls.current().orElseThrow();
            PemKeyCertOptions keyCert = new PemKeyCertOptions().addCertValue(Buffer.buffer(c.certificatePem()))
                    .addKeyValue(Buffer.buffer(c.keyPem()));
            if (server == null) {
                HttpServerOptions options = new HttpServerOptions().setSsl(true).setKeyCertOptions(keyCert)
                        .setPort(config.port()).setHost("0.0.0.0");
                server = vertx.createHttpServer(options).requestHandler(this::handle).listen()
                        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                LOG.infof("placement webhook serving HTTPS on port %d (%s, %s)", server.actualPort(), PATH, NAMESPACE_DEFAULT_PATH);
            } else if (changed) {
                server.updateSSLOptions(new SSLOptions().setKeyCertOptions(keyCert))
                        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                LOG.info("placement webhook serving its new certificate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            errors.increment();
            LOG.errorf("placement webhook: cannot read or make its certificate in Secret %s, or start serving: %s; trying "
                    + "again in %s", WebhookTls.SECRET, e.getMessage(), RECHECK);
        }
    }

    private void handle(HttpServerRequest request) {
        boolean namespaceDefault = NAMESPACE_DEFAULT_PATH.equals(request.path());
        if (!(namespaceDefault || PATH.equals(request.path())) || request.method() != io.vertx.core.http.HttpMethod.POST) {
            request.response().setStatusCode(404).end();
            return;
        }
        String length = request.getHeader("Content-Length");
        if (length != null && (!length.matches("\\d{1,9}") || Integer.parseInt(length) > MAX_BODY)) {
            errors.increment();
            request.response().setStatusCode(413).end("request body over " + MAX_BODY + " bytes");
            return;
        }
        request.body().onComplete(ar -> {
            if (ar.failed() || ar.result().length() > MAX_BODY) {
                errors.increment();
                request.response().setStatusCode(400).end("unreadable request body");
                return;
            }
            try {
                PlacementAdmission.Answer answer = admission.review(ar.result().toString(java.nio.charset.StandardCharsets.UTF_8),
                        namespaceDefault);
                outcomes.get(answer.outcome()).increment();
                request.response().putHeader("Content-Type", "application/json").end(answer.body());
            } catch (IllegalArgumentException e) {
                errors.increment();
                LOG.warnf("placement webhook: refused a request that is no AdmissionReview: %s", e.getMessage());
                request.response().setStatusCode(400).end(e.getMessage());
            }
        });
    }
}
