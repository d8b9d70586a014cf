package io.joulie.agent.control;

/**
 * What acted on a node, as {@code status.applied.<family>.backend} of its NodePowerProfile and the {@code backend}
 * label of the metrics name it. Each control family has its own enum of backends (CPU: {@code control.cpu.CpuBackend}).
 */
public interface Backend {
    /** The name in the status and the metrics ({@code powercap}, {@code http}, ...). */
    String label();
}
