/**
 * The one error type of the service. Anything thrown that is not an ApiError becomes a generic 500 whose body
 * never carries the internal message (see lib/http/respond.ts).
 */
export type ErrorCode =
  | "InvalidParameterValue"
  | "UnknownParameter"
  | "MissingParameter"
  | "InvalidRequestBody"
  | "InvalidHeader"
  | "MalformedRequest"
  | "RequestTimeout"
  | "PayloadTooLarge"
  | "URITooLong"
  | "RequestHeaderFieldsTooLarge"
  | "Unauthorized"
  | "NotFound"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "UnsupportedMediaType"
  | "InvalidQuery"
  | "QueryTooComplex"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable"
  | "RequestBudgetExceeded"
  | "QueryTimeout"
  // publishing an off-chain record (lib/offchain/)
  | "UnsupportedOffchainVersion"
  | "InvalidSignature"
  | "UidMismatch"
  | "UnknownNetwork"
  | "UnknownSchema"
  | "AttestationInFuture"
  | "AttestationExpired"
  | "UndecodableData"
  | "UnverifiableAstralAttestation"
  | "UidConflict"
  | "PublishingDisabled"
  | "AttesterNotAllowed";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      parameter?: string;
      headers?: Record<string, string>;
      details?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
  }
}

export const badParameter = (parameter: string, message: string) =>
  new ApiError(400, "InvalidParameterValue", message, { parameter });

export const unknownParameter = (parameter: string, allowed: readonly string[]) =>
  new ApiError(
    400,
    "UnknownParameter",
    `Unknown query parameter '${parameter}'. Allowed: ${allowed.length ? allowed.join(", ") : "none"}`,
    { parameter },
  );

export const notFound = (message: string) => new ApiError(404, "NotFound", message);

/** The spec's wording for a path that does not exist (also a wrong API version). */
export const cannotGet = (method: string, path: string) =>
  new ApiError(404, "NotFound", `Cannot ${method} ${path}`);

export const methodNotAllowed = (method: string, allow: readonly string[]) =>
  new ApiError(
    405,
    "MethodNotAllowed",
    `Method ${method} is not allowed here. Allowed: ${allow.join(", ")}`,
    {
      headers: { allow: allow.join(", ") },
    },
  );

export const serviceUnavailable = (message: string, details?: Record<string, unknown>) =>
  new ApiError(503, "ServiceUnavailable", message, details ? { details } : {});
