export const SERVICE_NAME = "Location Proof Query Service";
/** Kept equal to package.json's version by tests/platform/version.test.ts (a JSON import would need import attributes in every toolchain that compiles the functions). */
export const VERSION = "0.1.0";
