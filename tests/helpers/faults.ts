/**
 * The faults the test endpoints inject in front of a real server (tests/helpers/tcp-fault-proxy.ts,
 * upstash-bridge.ts, ws-bridge.ts), as one switch: `stall()` holds everything, `refuse()` closes the port and cuts
 * what is open, `resume()` listens again after a refusal and lets the held work through. Each endpoint says how it
 * does those for its own kind of traffic.
 */
export type Faults = { stall(): void; refuse(): Promise<void>; resume(): Promise<void> };

export type FaultMode = "flowing" | "stalled" | "refused";

export function faultSwitch(endpoint: {
  /** beyond remembering the mode, which `mode()` answers */
  stall?(): void;
  /** stops listening and cuts the open connections */
  closePort(): Promise<void>;
  /** listens on the same port again */
  reopenPort(): Promise<void>;
  /** lets what was held go on */
  release(): void;
}): Faults & { mode(): FaultMode; closeUnlessRefused(): Promise<void> } {
  let mode: FaultMode = "flowing";
  return {
    mode: () => mode,
    stall() {
      mode = "stalled";
      endpoint.stall?.();
    },
    async refuse() {
      mode = "refused";
      await endpoint.closePort();
    },
    async resume() {
      if (mode === "refused") await endpoint.reopenPort();
      mode = "flowing";
      endpoint.release();
    },
    async closeUnlessRefused() {
      if (mode !== "refused") await endpoint.closePort();
    },
  };
}
