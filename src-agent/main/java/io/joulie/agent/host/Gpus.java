package io.joulie.agent.host;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's GPU boards as the control code sees them: what was found at start, readings, power limits applied to
 * every board at once and the limits in force before the agent's first write written back. {@link NvmlGpus} on NVML; {@link #absent} where no
 * GPU can be reached (no library, no driver, no board), saying why.
 */
public interface Gpus extends AutoCloseable {
    /** Why no board can be controlled on this node, when none can (NVML not loaded, initialisation failed). */
    Optional<String> unavailable();

    /** The boards found at start, by index. */
    List<GpuBoard> boards();

    /** Board {@code index} read now. */
    GpuReading read(int index) throws IOException;

    /**
     * Every board's power limit for {@code cap} (watts per board, or a percent of each board's maximum), clamped to
     * the board's constraints; all boards or none.
     */
    GpuCapResult apply(CapRequest cap);

    /** The limits in force now, by board index, mW (a board that cannot be read is left out). */
    Map<Integer, Long> limitsMw();

    /** Whether the agent may have changed a limit since the start or the last restore, with the originals kept. */
    boolean held();

    /** An earlier agent process kept originals and did not write them back (and nothing has since). */
    boolean leftByEarlierProcess();

    /** Writes the originals back (the limits in force before the first write since the start or the last restore). */
    GpuCapResult restore();

    /** Leaves NVML (nvmlShutdown). */
    @Override
    void close();

    /** No GPU control on this node, for the reason given. */
    static Gpus absent(String why) {
        return new Gpus() {
            @Override
            public Optional<String> unavailable() {
                return Optional.of(why);
            }

            @Override
            public List<GpuBoard> boards() {
                return List.of();
            }

            @Override
            public GpuReading read(int index) {
                throw new IllegalArgumentException("no GPU control on this node: " + why);
            }

            @Override
            public GpuCapResult apply(CapRequest cap) {
                return new GpuCapResult(CapResult.Outcome.BLOCKED, why, Map.of(), Map.of());
            }

            @Override
            public Map<Integer, Long> limitsMw() {
                return Map.of();
            }

            @Override
            public boolean held() {
                return false;
            }

            @Override
            public boolean leftByEarlierProcess() {
                return false;
            }

            @Override
            public GpuCapResult restore() {
                return new GpuCapResult(CapResult.Outcome.APPLIED, "nothing to restore", Map.of(), Map.of());
            }

            @Override
            public void close() {
            }
        };
    }
}
