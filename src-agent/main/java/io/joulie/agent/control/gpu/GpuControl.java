package io.joulie.agent.control.gpu;

import io.joulie.agent.control.Control;

/**
 * A way to enforce the power limit of a node's GPU boards: host (NVML), http or none. A cap is watts per board or a
 * percent of each board's maximum.
 */
public interface GpuControl extends Control {
}
