package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The precondition of the agent DaemonSet (decision 143): the agent's admission policy and its binding are in force. */
class AdmissionInForceTest {
    static Optional<ValidatingAdmissionPolicy> policy(String name) {
        return Optional.of(new ValidatingAdmissionPolicyBuilder().withNewMetadata().withName(name).endMetadata().build());
    }

    static Optional<ValidatingAdmissionPolicyBinding> binding(String name, String policy) {
        return Optional.of(new ValidatingAdmissionPolicyBindingBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withPolicyName(policy).withValidationActions("Deny").endSpec().build());
    }

    @Test
    void onlyThePolicyAndABindingOfItBothPresentLetTheDaemonSetBeWritten() {
        String name = AgentTemplate.ADMISSION_POLICY;
        assertThat(JoulieDependents.AdmissionInForce.inForce(policy(name), binding(name, name))).isTrue();
        assertThat(JoulieDependents.AdmissionInForce.inForce(Optional.empty(), binding(name, name))).as("no policy").isFalse();
        assertThat(JoulieDependents.AdmissionInForce.inForce(policy(name), Optional.empty())).as("no binding").isFalse();
        assertThat(JoulieDependents.AdmissionInForce.inForce(policy(name), binding(name, "another"))).as("a binding of another policy").isFalse();
        assertThat(JoulieDependents.AdmissionInForce.inForce(policy("another"), binding(name, name))).as("another policy").isFalse();
    }
}
