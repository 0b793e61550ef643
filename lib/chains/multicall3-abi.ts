import { parseAbi } from "viem";

/** Multicall3's aggregate3 only: one eth_call carries ~100 getAttestation reads. */
export const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);
