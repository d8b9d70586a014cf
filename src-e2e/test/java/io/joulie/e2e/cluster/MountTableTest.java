package io.joulie.e2e.cluster;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MountTableTest {
    /**
     * A container's table as runc leaves it for a read-only rbind of a host directory with a tmpfs below it, and a
     * writable rbind of that tmpfs stacked at the same place: the read-only copy of the tmpfs and what hangs on it are
     * hidden; the stacked one and its own copies are what paths reach.
     */
    static final String TABLE = """
            100 90 0:50 / / ro,relatime - overlay overlay rw,lowerdir=/l
            101 100 0:22 / /host/sys ro,relatime master:1 - sysfs sysfs rw
            102 101 0:60 / /host/sys/devices/virtual rw,relatime - tmpfs shadow_sys_devices_virtual rw,mode=755
            103 102 0:22 /devices/virtual/net /host/sys/devices/virtual/net rw,relatime - sysfs sysfs rw
            104 102 254:0 /work/host/sys/devices/virtual/powercap /host/sys/devices/virtual/powercap rw,relatime - ext4 /dev/vda rw
            105 101 0:28 / /host/sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            106 102 0:60 / /host/sys/devices/virtual rw,relatime - tmpfs shadow_sys_devices_virtual rw,mode=755
            107 106 0:22 /devices/virtual/net /host/sys/devices/virtual/net rw,relatime - sysfs sysfs rw
            108 106 254:0 /work/host/sys/devices/virtual/powercap /host/sys/devices/virtual/powercap rw,relatime - ext4 /dev/vda rw
            109 100 254:0 /work/state /var/lib/joulie rw,relatime - ext4 /dev/vda rw
            110 100 0:70 / /tmp\\040dir rw - tmpfs tmpfs rw
            """;

    @Test
    void stackedMountsHideWhatIsBelowThem() {
        MountTable table = MountTable.parse(TABLE);
        assertThat(table.mounts()).hasSize(11);
        assertThat(table.visible()).extracting(MountTable.Mount::id).containsExactly(100, 101, 105, 106, 107, 108, 109, 110);
        assertThat(table.at("/host/sys").readOnly()).isTrue();
        assertThat(table.at("/host/sys/devices/virtual").id()).isEqualTo(106);
        assertThat(table.at("/host/sys/devices/virtual/powercap").root()).isEqualTo("/work/host/sys/devices/virtual/powercap");
        assertThat(table.at("/host/sys/devices/virtual/powercap").atOrBelow("/host/sys/devices/virtual")).isTrue();
        assertThat(table.at("/host/sys/fs/cgroup").atOrBelow("/host/sys/devices/virtual")).isFalse();
        assertThat(table.at("/tmp dir").type()).isEqualTo("tmpfs");
        assertThat(table.at("/var/lib/joulie").readOnly()).isFalse();
    }
}
