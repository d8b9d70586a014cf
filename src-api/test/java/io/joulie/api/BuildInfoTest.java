package io.joulie.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class BuildInfoTest {
    /** Maven filtered the resource: the root pom's joulie.version and a revision, no placeholder left. */
    @Test
    void theBuildIsTheOneThePomDeclares() throws Exception {
        Matcher m = Pattern.compile("<joulie.version>([^<]+)</joulie.version>").matcher(Files.readString(Path.of("..", "pom.xml")));
        assertThat(m.find()).as("joulie.version in the root pom.xml").isTrue();
        BuildInfo b = BuildInfo.current();
        assertThat(b.version()).isEqualTo(m.group(1));
        assertThat(b.revision()).isNotBlank().doesNotContain("@");
    }
}
