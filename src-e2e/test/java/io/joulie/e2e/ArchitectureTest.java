package io.joulie.e2e;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of the code, checked on every module's main classes (this module comes last in the reactor, so all are
 * compiled): the planning core stays pure, FFM stays behind the agent's host layer, no package cycles.
 */
class ArchitectureTest {
    static final List<String> MODULES = List.of("src-api", "src-planner", "src", "src-agent", "src-harness", "src-sim");
    static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        String root = System.getProperty("repository.root");
        Path repo = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        List<Path> dirs = MODULES.stream().map(m -> repo.resolve(m).resolve("target/classes")).toList();
        assertThat(dirs).as("compiled main classes of every module (build the reactor first)").allMatch(Files::isDirectory);
        main = new ClassFileImporter().importPaths(dirs);
    }

    @Test
    void thePlannerIsPure() {
        classes().that().resideInAPackage("io.joulie.planner..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.joulie.planner..", "io.joulie.api..",
                        "io.fabric8.kubernetes.api.model..")
                .because("the planner is the pure core: no client calls, no framework, no clock but the context's "
                        + "(the operator and the simulator run the same classes)")
                .check(main);
        classes().that().resideInAPackage("io.joulie.planner..").and().doNotHaveSimpleName("PodClassifier")
                .and().doNotHaveSimpleName("EcoPlacement")
                .should().onlyDependOnClassesThat().resideOutsideOfPackage("io.fabric8..")
                .because("only the pod classifier and the eco placement rule read (and the rule writes) the Kubernetes model: "
                        + "Pod specs as the API serves them")
                .check(main);
        noClasses().that().resideInAPackage("io.joulie.planner..")
                .should().callMethod(Instant.class, "now").orShould().callMethod(System.class, "currentTimeMillis")
                .because("a tick's instant is the context's (ClusterContext.now)")
                .check(main);
    }

    @Test
    void ffmStaysBehindTheAgentsHostLayer() {
        noClasses().that().resideOutsideOfPackages("io.joulie.agent.host..", "io.joulie.agent.runtime..")
                .should().dependOnClassesThat().resideInAPackage("io.joulie.agent.host.ffm..")
                .because("FFM implements the host layer's ports; only the host layer and the agent's composition root "
                        + "(agent.runtime, which picks the FFM implementation) know it")
                .check(main);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"io.joulie.(*)..", "io.joulie.operator.(*)..", "io.joulie.agent.(*)..", "io.joulie.planner.(*)..",
            "io.joulie.api.(*)..", "io.joulie.sim.(*).."})
    void noPackageCycles(String slices) {
        slices().matching(slices).should().beFreeOfCycles().allowEmptyShould(true).check(main);
    }
}
