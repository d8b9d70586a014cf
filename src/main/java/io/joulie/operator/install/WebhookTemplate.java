package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorNamespace;
import io.joulie.operator.webhook.PlacementWebhookServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The placement webhook's objects (decision 209): a Service in front of the operator's webhook port and the
 * MutatingWebhookConfiguration that registers it for Pod creations. The API server calls the webhook only for Pods
 * that carry the {@code joulie.io/workload-class} annotation (a match condition), never in kube-system, the operator's
 * namespace or {@code spec.placement.excludedNamespaces}; it lets Pods through unchanged when the webhook cannot answer
 * unless {@code spec.placement.failurePolicy} is Fail. Its {@code caBundle} is the webhook's own certificate.
 *
 * <p>A second webhook of the same configuration gives Pods of namespaces labelled {@code joulie.io/workload-class=eco}
 * that class by default (decision 213): the API server's namespace selector picks those namespaces, a match condition
 * sends only Pods without the annotation, and the path tells the operator that the default applies, so that the
 * operator reads no Namespace.
 */
@ApplicationScoped
public class WebhookTemplate {
    public static final String CONFIGURATION = "joulie-pod-placement";
    static final String WEBHOOK = "pod-placement.joulie.io";
    static final String NAMESPACE_DEFAULT_WEBHOOK = "namespace-default.pod-placement.joulie.io";
    static final int SERVICE_PORT = 443;
    static final Map<String, String> LABELS = Map.of("app.kubernetes.io/name", "joulie-operator", "app.kubernetes.io/part-of",
            "joulie", "app.kubernetes.io/component", "webhook", "app.kubernetes.io/managed-by", "joulie-operator");
    /** Only Pods that carry the annotation are sent to the webhook at all. */
    static final String MATCH = "has(object.metadata.annotations) && '" + JoulieApi.WORKLOAD_CLASS_ANNOTATION
            + "' in object.metadata.annotations";
    /** In a namespace whose default class is eco, only the Pods without the annotation (the others take {@link #MATCH}). */
    static final String MATCH_UNDECLARED = "!(" + MATCH + ")";

    private final String namespace;
    private final OperatorConfig.Webhook config;
    private final Supplier<String> caBundle;
    private final Runnable reread;

    @Inject
    public WebhookTemplate(KubernetesClient client, OperatorConfig config, PlacementWebhookServer server) {
        this(OperatorNamespace.of(client, config), config.webhook(),
                server::caBundle, server::look);
    }

    /**
     * @param caBundle the served certificate, base64 PEM (may throw while there is none)
     * @param reread   reads the certificate's Secret again (another replica may have renewed it)
     */
    WebhookTemplate(String namespace, OperatorConfig.Webhook config, Supplier<String> caBundle, Runnable reread) {
        this.namespace = namespace;
        this.config = config;
        this.caBundle = caBundle;
        this.reread = reread;
    }

    /**
     * Before the configuration is compared with the one registered: a {@code caBundle} there that is not this replica's
     * certificate means another replica renewed it (or this one did and the other has not seen it yet); reading the
     * Secret again now, rather than at the next periodic look, keeps replicas from writing each other's bundle back.
     */
    void registered(MutatingWebhookConfiguration current) {
        String seen = current == null || current.getWebhooks() == null || current.getWebhooks().isEmpty()
                || current.getWebhooks().get(0).getClientConfig() == null ? null
                : current.getWebhooks().get(0).getClientConfig().getCaBundle();
        if (seen != null && !seen.equals(caBundle.get())) {
            reread.run();
        }
    }

    /** Whether the webhook is registered for this resource: served by the operator and wanted by the spec. */
    boolean wanted(Joulie j) {
        return config.enabled() && JoulieSpec.Placement.of(j.getSpec()).ecoPreferenceEnabled();
    }

    /**
     * The Service forwards to the container port named {@code webhook} (9443 in the shipped Deployment), not to a number
     * of this replica's configuration: every replica keeps this object, and they must agree on it.
     */
    public Service service(Joulie j) {
        return new ServiceBuilder().withNewMetadata().withName(config.service()).withNamespace(namespace).withLabels(LABELS)
                .endMetadata().withNewSpec().withSelector(AgentTemplate.OPERATOR_POD)
                .addNewPort().withName("webhook").withProtocol("TCP").withPort(SERVICE_PORT)
                .withTargetPort(new IntOrString("webhook")).endPort().endSpec().build();
    }

    public MutatingWebhookConfiguration configuration(Joulie j) {
        JoulieSpec.Placement p = JoulieSpec.Placement.of(j.getSpec());
        List<String> excluded = new ArrayList<>(new LinkedHashSet<>(concat(List.of("kube-system", namespace),
                p.excludedNamespacesOrEmpty())));
        LabelSelectorRequirement notExcluded = new LabelSelectorRequirement("kubernetes.io/metadata.name", "NotIn", excluded);
        LabelSelectorRequirement ecoDefault = new LabelSelectorRequirement(JoulieApi.WORKLOAD_CLASS_NAMESPACE_LABEL, "In",
                List.of(JoulieApi.WORKLOAD_CLASS_ECO));
        return new MutatingWebhookConfigurationBuilder().withNewMetadata().withName(CONFIGURATION).withLabels(LABELS).endMetadata()
                .withWebhooks(webhook(p, WEBHOOK, PlacementWebhookServer.PATH, List.of(notExcluded), "declares-workload-class", MATCH),
                        webhook(p, NAMESPACE_DEFAULT_WEBHOOK, PlacementWebhookServer.NAMESPACE_DEFAULT_PATH,
                                List.of(notExcluded, ecoDefault), "no-workload-class", MATCH_UNDECLARED))
                .build();
    }

    /** One webhook of the configuration: Pod creations in the selected namespaces that meet the condition, to this path. */
    private MutatingWebhook webhook(JoulieSpec.Placement p, String name, String path, List<LabelSelectorRequirement> namespaces,
                                    String conditionName, String condition) {
        WebhookClientConfigBuilder client = new WebhookClientConfigBuilder().withCaBundle(caBundle.get());
        if (config.url().isPresent()) {
            // the configured URL is the main path's; the other paths hang below it
            client.withUrl(config.url().get() + path.substring(PlacementWebhookServer.PATH.length()));
        } else {
            client.withNewService().withName(config.service()).withNamespace(namespace).withPort(SERVICE_PORT)
                    .withPath(path).endService();
        }
        WebhookClientConfig clientConfig = client.build();
        return new MutatingWebhookBuilder().withName(name).withAdmissionReviewVersions("v1").withSideEffects("None")
                .withFailurePolicy(p.failurePolicyOrDefault()).withTimeoutSeconds(p.timeoutSecondsOrDefault())
                .withMatchPolicy("Equivalent").withReinvocationPolicy("Never")
                .addNewRule().withOperations("CREATE").withApiGroups("").withApiVersions("v1").withResources("pods")
                .withScope("Namespaced").endRule()
                .withNewNamespaceSelector().withMatchExpressions(namespaces).endNamespaceSelector()
                .withNewObjectSelector().endObjectSelector()
                .addNewMatchCondition().withName(conditionName).withExpression(condition).endMatchCondition()
                .withClientConfig(clientConfig).build();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
