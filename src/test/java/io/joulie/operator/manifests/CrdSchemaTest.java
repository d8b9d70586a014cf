package io.joulie.operator.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI schemas of the committed CRDs (the ones {@code kubectl apply -f kubernetes/} installs)
 * accept well-formed objects and reject malformed ones, as the API server's validation would. The
 * schemas are draft-4 style (boolean {@code exclusiveMinimum}), so they are checked with a V4 validator.
 */
class CrdSchemaTest {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonSchema schema(String crd) throws IOException {
        Path file = Manifests.repository().resolve("kubernetes/10-crd-" + crd + ".yml");
        JsonNode root = YAML.readTree(file.toFile());
        JsonNode openApi = root.at("/spec/versions/0/schema/openAPIV3Schema");
        assertThat(openApi.isMissingNode()).as("schema in " + file).isFalse();
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(openApi);
    }

    static Set<ValidationMessage> validate(String crd, String objectJson) throws IOException {
        return schema(crd).validate(JSON.readTree(objectJson));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "eco with cap | {'spec':{'nodeName':'worker-01','profile':'eco','cpu':{'packagePowerCapWatts':180},'policy':{'name':'rule_swap_v1'}}}",
            "performance without cap | {'spec':{'nodeName':'worker-01','profile':'performance'}}",
            "with status | {'spec':{'nodeName':'w','profile':'eco'},'status':{'state':'DrainingPerformance','since':'2026-01-01T00:00:00Z','reason':'x','observedGeneration':2}}",
            "with the agent's answer | {'spec':{'nodeName':'w','profile':'eco'},'status':{'agent':'Confirmed','performancePods':0,'applied':{'generation':3,'time':'2026-01-01T00:00:00Z','cpu':{'result':'Applied','backend':'powercap','watts':180,'packages':[{'index':0,'watts':90}]},'gpu':{'result':'Restored','backend':'nvml','boards':[{'index':0,'name':'H100','watts':700}]}}}}",
    })
    void validNodePowerProfilesAreAccepted(String name, String json) throws IOException {
        assertThat(validate("nodepowerprofiles.joulie.io", json.replace('\'', '"'))).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown profile | {'spec':{'nodeName':'w','profile':'turbo'}} | spec.profile",
            "negative cap | {'spec':{'nodeName':'w','profile':'eco','cpu':{'packagePowerCapWatts':-5}}} | packagePowerCapWatts",
            "zero cap | {'spec':{'nodeName':'w','profile':'eco','cpu':{'packagePowerCapWatts':0}}} | packagePowerCapWatts",
            "cap as text | {'spec':{'nodeName':'w','profile':'eco','cpu':{'packagePowerCapWatts':'lots'}}} | packagePowerCapWatts",
            "missing nodeName | {'spec':{'profile':'eco'}} | nodeName",
            "missing profile | {'spec':{'nodeName':'w'}} | profile",
            "unknown state | {'spec':{'nodeName':'w','profile':'eco'},'status':{'state':'Sleeping'}} | status.state",
            "unknown answer | {'spec':{'nodeName':'w','profile':'eco'},'status':{'applied':{'cpu':{'result':'maybe'}}}} | cpu.result",
            "unknown verdict | {'spec':{'nodeName':'w','profile':'eco'},'status':{'agent':'Perhaps'}} | status.agent",
    })
    void invalidNodePowerProfilesAreRejected(String name, String json, String mentioned) throws IOException {
        assertRejected("nodepowerprofiles.joulie.io", name, json, mentioned);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "node scope with http control | {'spec':{'target':{'scope':'node','nodeName':'w'},'controls':{'cpu':{'type':'http','http':{'endpoint':'http://sim/{node}','timeoutSeconds':5,'mode':'dvfs'}}}}}",
            "cluster scope with prometheus source | {'spec':{'target':{'scope':'cluster'},'sources':{'cpu':{'type':'prometheus','prometheus':{'endpoint':'http://prom:9090','query':'up'}}}}}",
    })
    void validTelemetryProfilesAreAccepted(String name, String json) throws IOException {
        assertThat(validate("telemetryprofiles.joulie.io", json.replace('\'', '"'))).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown scope | {'spec':{'target':{'scope':'rack'}}} | target.scope",
            "missing target | {'spec':{}} | target",
            "timeout 0 | {'spec':{'target':{'scope':'cluster'},'sources':{'cpu':{'type':'http','http':{'endpoint':'e','timeoutSeconds':0}}}}} | timeoutSeconds",
            "timeout 301 | {'spec':{'target':{'scope':'cluster'},'controls':{'cpu':{'type':'http','http':{'endpoint':'e','timeoutSeconds':301}}}}} | timeoutSeconds",
            "gpu mode on cpu | {'spec':{'target':{'scope':'cluster'},'controls':{'cpu':{'type':'http','http':{'endpoint':'e','mode':'clocks'}}}}} | http.mode",
            "unknown source type | {'spec':{'target':{'scope':'cluster'},'sources':{'thermal':{'type':'ipmi'}}}} | thermal.type",
            "http without endpoint | {'spec':{'target':{'scope':'cluster'},'controls':{'gpu':{'type':'http','http':{'mode':'powercap'}}}}} | endpoint",
    })
    void invalidTelemetryProfilesAreRejected(String name, String json, String mentioned) throws IOException {
        assertRejected("telemetryprofiles.joulie.io", name, json, mentioned);
    }

    @org.junit.jupiter.api.Test
    void theSampleJoulieResourceIsValid() throws IOException {
        JsonNode sample = YAML.readTree(Manifests.repository().resolve("kubernetes/" + Manifests.SAMPLE).toFile());

        assertThat(sample.at("/metadata/name").asText()).isEqualTo("joulie");
        assertThat(schema("joulies.joulie.io").validate(sample)).isEmpty();
        assertThat(validate("joulies.joulie.io", "{\"spec\":{\"agent\":{\"restoreOnExit\":\"sometimes\"}}}"))
                .isNotEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown policy type | {'spec':{'policy':{'type':'fastest'}}} | policy.type",
            "share above 1 | {'spec':{'policy':{'staticHpFrac':1.5}}} | staticHpFrac",
            "negative share | {'spec':{'policy':{'queueHpBaseFrac':-0.1}}} | queueHpBaseFrac",
            "zero cap | {'spec':{'policy':{'ecoCapWatts':0}}} | ecoCapWatts",
            "unknown escalation | {'spec':{'policy':{'downgradeEscalation':'panic'}}} | downgradeEscalation",
            "zero pods per node | {'spec':{'policy':{'queuePerfPerHpNode':0}}} | queuePerfPerHpNode",
            "monitoring switch as text | {'spec':{'monitoring':{'serviceMonitor':'maybe'}}} | serviceMonitor",
            "settle time not a duration | {'spec':{'policy':{'settleTime':'soon'}}} | settleTime",
            "confirmation timeout not a duration | {'spec':{'policy':{'capConfirmationTimeout':'soon'}}} | capConfirmationTimeout",
            "downgrade timeout not a duration | {'spec':{'policy':{'downgradeTimeout':'later'}}} | downgradeTimeout",
            "reconcile interval not a duration | {'spec':{'policy':{'reconcileInterval':'1 min'}}} | reconcileInterval",
            "agent interval not a duration | {'spec':{'agent':{'reconcileInterval':'often'}}} | reconcileInterval",
            "query timeout not a duration | {'spec':{'policy':{'telemetry':{'prometheus':{'url':'https://p:9090','timeout':'5 s'}}}}} | timeout",
    })
    void invalidJoulieResourcesAreRejected(String name, String json, String mentioned) throws IOException {
        assertRejected("joulies.joulie.io", name, json, mentioned);
    }

    /** The object (JSON with ' for ") fails the CRD's schema with a message that names {@code mentioned}. */
    static void assertRejected(String crd, String name, String json, String mentioned) throws IOException {
        Set<ValidationMessage> errors = validate(crd, json.replace('\'', '"'));

        assertThat(errors).as(name).isNotEmpty();
        assertThat(errors.toString()).contains(mentioned);
    }

    @org.junit.jupiter.api.Test
    void aFullJoulieResourceIsValid() throws IOException {
        String json = """
                {'spec':{'policy':{'type':'queue_aware_v1','staticHpFrac':0.75,'queueHpBaseFrac':0.7,'queueHpMin':2,
                 'queueHpMax':5,'queuePerfPerHpNode':15,'performanceCapWatts':500,'ecoCapWatts':260,
                 'downgradeEscalation':'evict','downgradeTimeout':'30m','reconcileInterval':'1m'},
                 'monitoring':{'serviceMonitor':true,'grafanaDashboard':false,'prometheusRules':true,'labels':{'release':'prom'}}}}""";
        assertThat(validate("joulies.joulie.io", json.replace('\'', '"'))).isEmpty();
    }
}
