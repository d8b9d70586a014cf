package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.TestConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class WebhookTemplateTest {
    static Joulie joulie(JoulieSpec.Placement placement) {
        Joulie j = new Joulie();
        j.getMetadata().setName(Joulie.ACTIVE_NAME);
        j.setSpec(new JoulieSpec(null, null, null, placement));
        return j;
    }

    static WebhookTemplate template(boolean enabled, Optional<String> url) {
        return new WebhookTemplate("joulie-system", TestConfig.webhook(enabled, url), () -> "Q0E=", () -> {
        });
    }

    @Test
    void aBundleRegisteredByAnotherReplicaMakesThisOneReadTheSecretAgain() {
        int[] rereads = {0};
        WebhookTemplate t = new WebhookTemplate("joulie-system", TestConfig.webhook(true, Optional.empty()), () -> "Q0E=",
                () -> rereads[0]++);
        t.registered(null);
        t.registered(t.configuration(joulie(null)));
        assertThat(rereads[0]).isZero();

        var other = t.configuration(joulie(null));
        other.getWebhooks().get(0).getClientConfig().setCaBundle("b3RoZXI=");
        t.registered(other);
        assertThat(rereads[0]).isEqualTo(1);
    }

    @Test
    void byDefaultThePodsThatDeclareAClassAreSentThroughTheServiceAndLetThroughWhenItCannotAnswer() {
        MutatingWebhook w = template(true, Optional.empty()).configuration(joulie(null)).getWebhooks().get(0);

        assertThat(w.getClientConfig().getService().getName()).isEqualTo("joulie-operator-webhook");
        assertThat(w.getClientConfig().getService().getNamespace()).isEqualTo("joulie-system");
        assertThat(w.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
        assertThat(w.getClientConfig().getUrl()).isNull();
        assertThat(w.getClientConfig().getCaBundle()).isEqualTo("Q0E=");
        assertThat(w.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(w.getTimeoutSeconds()).isEqualTo(5);
        assertThat(w.getSideEffects()).isEqualTo("None");
        assertThat(w.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getOperations()).containsExactly("CREATE");
            assertThat(r.getResources()).containsExactly("pods");
        });
        assertThat(w.getMatchConditions()).singleElement()
                .satisfies(c -> assertThat(c.getExpression()).contains("'joulie.io/workload-class' in object.metadata.annotations"));
        assertThat(w.getNamespaceSelector().getMatchExpressions()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("kubernetes.io/metadata.name");
            assertThat(e.getOperator()).isEqualTo("NotIn");
            assertThat(e.getValues()).containsExactly("kube-system", "joulie-system");
        });
        Service s = template(true, Optional.empty()).service(joulie(null));
        assertThat(s.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort()).isEqualTo(443);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("webhook");
        });
        assertThat(s.getSpec().getSelector()).isEqualTo(AgentTemplate.OPERATOR_POD);
    }

    @Test
    void theSpecSetsFailurePolicyTimeoutAndExclusions() {
        MutatingWebhook w = template(true, Optional.of("https://127.0.0.1:9443/mutate-pods"))
                .configuration(joulie(new JoulieSpec.Placement(true, "Fail", 2, List.of("batch", "kube-system"))))
                .getWebhooks().get(0);

        assertThat(w.getClientConfig().getUrl()).isEqualTo("https://127.0.0.1:9443/mutate-pods");
        assertThat(w.getClientConfig().getService()).isNull();
        assertThat(w.getFailurePolicy()).isEqualTo("Fail");
        assertThat(w.getTimeoutSeconds()).isEqualTo(2);
        assertThat(w.getNamespaceSelector().getMatchExpressions().get(0).getValues())
                .containsExactly("kube-system", "joulie-system", "batch");
    }

    @Test
    void namespacesLabelledEcoSendTheirUndeclaredPodsToTheNamespaceDefaultPath() {
        List<MutatingWebhook> both = template(true, Optional.empty())
                .configuration(joulie(new JoulieSpec.Placement(true, "Fail", 3, List.of("batch")))).getWebhooks();
        assertThat(both).extracting(MutatingWebhook::getName)
                .containsExactly("pod-placement.joulie.io", "namespace-default.pod-placement.joulie.io");
        MutatingWebhook main = both.get(0);
        MutatingWebhook w = both.get(1);
        assertThat(w.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods/namespace-eco");
        assertThat(w.getClientConfig().getService().getName()).isEqualTo(main.getClientConfig().getService().getName());
        assertThat(w.getClientConfig().getCaBundle()).isEqualTo("Q0E=");
        assertThat(w.getFailurePolicy()).isEqualTo("Fail");
        assertThat(w.getTimeoutSeconds()).isEqualTo(3);
        assertThat(w.getRules()).isEqualTo(main.getRules());
        // the excluded namespaces stay excluded; of the others only those labelled joulie.io/workload-class=eco
        assertThat(w.getNamespaceSelector().getMatchExpressions()).hasSize(2);
        assertThat(w.getNamespaceSelector().getMatchExpressions().get(0)).isEqualTo(main.getNamespaceSelector().getMatchExpressions().get(0));
        assertThat(w.getNamespaceSelector().getMatchExpressions().get(0).getValues()).containsExactly("kube-system", "joulie-system", "batch");
        assertThat(w.getNamespaceSelector().getMatchExpressions().get(1)).satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("joulie.io/workload-class");
            assertThat(e.getOperator()).isEqualTo("In");
            assertThat(e.getValues()).containsExactly("eco");
        });
        // exactly the Pods the main webhook does not take: no Pod is sent twice
        assertThat(w.getMatchConditions()).singleElement().satisfies(c -> assertThat(c.getExpression())
                .isEqualTo("!(" + main.getMatchConditions().get(0).getExpression() + ")"));

        MutatingWebhook byUrl = template(true, Optional.of("https://127.0.0.1:9443/mutate-pods")).configuration(joulie(null))
                .getWebhooks().get(1);
        assertThat(byUrl.getClientConfig().getUrl()).isEqualTo("https://127.0.0.1:9443/mutate-pods/namespace-eco");
        assertThat(byUrl.getClientConfig().getService()).isNull();
    }

    @Test
    void itIsWantedOnlyWhenServedAndNotTurnedOff() {
        assertThat(template(true, Optional.empty()).wanted(joulie(null))).isTrue();
        assertThat(template(true, Optional.empty()).wanted(joulie(new JoulieSpec.Placement(false, null, null, null)))).isFalse();
        assertThat(template(false, Optional.empty()).wanted(joulie(null))).isFalse();
    }
}
