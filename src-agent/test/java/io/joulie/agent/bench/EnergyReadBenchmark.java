package io.joulie.agent.bench;

import io.joulie.agent.host.ffm.NativeFile;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Reading one energy counter ({@code energy_uj}, here a temp file) and parsing it: through the FFM path on
 * a descriptor opened once (pread at offset 0, parsed in the native buffer), through FFM with an open and
 * close per read, and with {@code Files.readString} + {@code Long.parseLong}. Run with
 * {@code ./mvnw -Pbench -pl src-api,src-agent verify -DskipTests} (docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EnergyReadBenchmark {
    Path file;
    NativeFile preOpened;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        file = Files.createTempFile("energy_uj", "");
        Files.writeString(file, "262143328850\n");
        preOpened = NativeFile.open(file, NativeFile.Mode.READ);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        preOpened.close();
        Files.delete(file);
    }

    @Benchmark
    public long ffmPreadPreOpened() throws IOException {
        return preOpened.readDecimal();
    }

    @Benchmark
    public long ffmOpenPreadClose() throws IOException {
        return NativeFile.readDecimal(file);
    }

    @Benchmark
    public long filesReadString() throws IOException {
        return Long.parseLong(Files.readString(file).strip());
    }
}
