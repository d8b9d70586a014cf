package io.joulie.agent.host.ffm;

import io.joulie.agent.host.HostFileException;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeFileTest {
    /** A real sysfs attribute with mode 0444: kernfs refuses to open it for writing, even for root. */
    static final Path READ_ONLY_SYSFS_ATTRIBUTE = Path.of("/sys/devices/system/cpu/kernel_max");

    @TempDir
    Path dir;

    @Test
    void openingAMissingFileFailsWithEnoentNamingThePath() {
        Path missing = dir.resolve("intel-rapl:9/energy_uj");
        assertThatThrownBy(() -> NativeFile.open(missing, NativeFile.Mode.READ))
                .isInstanceOfSatisfying(NativeIoException.class, e -> {
                    assertThat(e.error()).contains(Errno.ENOENT);
                    assertThat(e.path()).isEqualTo(missing);
                    assertThat(e.kind()).isEqualTo(HostFileException.Kind.ABSENT);
                    assertThat(e).hasMessage("open " + missing + ": ENOENT (2, no such file or directory)");
                });
    }

    @Test
    void aHandleOpenedOnceReadsEachNewValueFromOffsetZero() throws IOException {
        Path file = dir.resolve("energy_uj");
        FakeHost.write(file, "100");
        try (NativeFile handle = NativeFile.open(file, NativeFile.Mode.READ)) {
            assertThat(handle.readDecimal()).isEqualTo(100);
            FakeHost.write(file, "262143328850");
            assertThat(handle.readDecimal()).isEqualTo(262_143_328_850L);
            assertThat(handle.readText()).isEqualTo("262143328850");
        }
    }

    @Test
    void readDecimalRejectsWhatIsNotADecimal() {
        Path text = dir.resolve("name");
        FakeHost.write(text, "12a");
        assertThatThrownBy(() -> NativeFile.readDecimal(text)).isInstanceOf(IOException.class)
                .hasMessage(text + ": not a decimal number: '12a'");
        Path empty = dir.resolve("empty");
        FakeHost.write(empty, "");
        assertThatThrownBy(() -> NativeFile.readDecimal(empty)).hasMessage(empty + ": empty, expected a decimal number");
        Path huge = dir.resolve("huge");
        FakeHost.write(huge, "9223372036854775808");
        assertThatThrownBy(() -> NativeFile.readDecimal(huge)).hasMessageContaining("not a decimal number");
    }

    @Test
    void readLongReadsEightLittleEndianBytesAtTheOffset() throws IOException {
        Path msr = new FakeHost(dir).msr(0, Map.of(0x611L, 0x0123_4567_89AB_CDEFL, 0xC001_029BL, -2L));
        try (NativeFile handle = NativeFile.open(msr, NativeFile.Mode.READ)) {
            assertThat(handle.readLong(0x611)).isEqualTo(0x0123_4567_89AB_CDEFL);
            assertThat(handle.readLong(0xC001_029BL)).isEqualTo(-2L);
            assertThat(handle.readLong(0x610)).isEqualTo(0x2345_6789_ABCD_EF00L);
            assertThatThrownBy(() -> handle.readLong(0xC001_02A0L))
                    .hasMessage(msr + ": read 3 of 8 bytes at 0xc00102a0");
        }
    }

    @Test
    void writeTextReplacesALongerValueCompletely() throws IOException {
        Path file = dir.resolve("constraint_0_power_limit_uw");
        FakeHost.write(file, "1000000000");
        NativeFile.writeText(file, "95000000");
        assertThat(Files.readString(file)).isEqualTo("95000000");
    }

    @Test
    void openingAReadOnlySysfsAttributeForWritingIsRefusedEvenToRoot() {
        assumeTrue(Files.isReadable(READ_ONLY_SYSFS_ATTRIBUTE), "needs " + READ_ONLY_SYSFS_ATTRIBUTE);
        assertThatThrownBy(() -> NativeFile.open(READ_ONLY_SYSFS_ATTRIBUTE, NativeFile.Mode.WRITE))
                .isInstanceOfSatisfying(NativeIoException.class, e -> {
                    assertThat(e.error().orElseThrow()).isIn(Errno.EACCES, Errno.EROFS);
                    assertThat(e.kind()).isEqualTo(HostFileException.Kind.REFUSED);
                    assertThat(e.getMessage()).startsWith("open " + READ_ONLY_SYSFS_ATTRIBUTE + ": E");
                });
    }

    @Test
    void openingADirectoryForWritingFailsWithEisdir() {
        assertThatThrownBy(() -> NativeFile.open(dir, NativeFile.Mode.WRITE))
                .isInstanceOfSatisfying(NativeIoException.class, e -> {
                    assertThat(e.error()).contains(Errno.EISDIR);
                    assertThat(e.kind()).isEqualTo(HostFileException.Kind.FAULT);
                });
    }

    @Test
    void aClosedHandleRefusesUseAndClosesOnce() throws IOException {
        Path file = dir.resolve("energy_uj");
        FakeHost.write(file, "1");
        NativeFile handle = NativeFile.open(file, NativeFile.Mode.READ);
        handle.close();
        handle.close();
        assertThatThrownBy(handle::readDecimal).isInstanceOf(IllegalStateException.class).hasMessage(file + " is closed");
    }

    @Test
    void errnoNumbersAreNamed() {
        assertThat(Errno.describe(13)).isEqualTo("EACCES (13, permission denied)");
        assertThat(Errno.describe(22)).isEqualTo("EINVAL (22, invalid argument)");
        assertThat(Errno.describe(4242)).isEqualTo("errno 4242");
    }
}
