// Authentication: x509 client certificates, bearer tokens from --token-auth-file, anonymous; and the
// authentication.k8s.io reviews answered from the same chain.
export { buildAuthenticator, loadAuthenticator, UnionAuthenticator } from './authenticator.js';
export type { AuthenticatorConfig, AuthenticatorFiles, LoadAuthenticatorResult } from './authenticator.js';
export { BearerTokenAuthenticator, headerValue, invalidBearerToken, invalidTokenWithSpaceWarning } from './bearer-token.js';
export { loadTokenFile, parseTokenFile, TokenFileAuthenticator } from './token-file.js';
export type { TokenFileResult } from './token-file.js';
export { clientCertFromSocket, X509Authenticator } from './x509.js';
export { answerSelfSubjectReview, answerTokenReview, authenticationGroup } from './reviews.js';
export type { ReviewUserInfo, SelfSubjectReview, SelfSubjectReviewContext, TokenReview, TokenReviewContext, TokenReviewSpec, TokenReviewStatus } from './reviews.js';
export type { ReviewResult } from './review-decode.js';
export {
  allAuthenticated,
  allUnauthenticated,
  anonymousUser,
  systemPrivilegedGroup,
} from './types.js';
export type {
  AuthenticationMethod,
  AuthenticationRequest,
  AuthenticationResult,
  Authenticator,
  AuthenticatorResponse,
  ClientCertInfo,
  RequestAuthenticator,
  RequestHeaders,
  TokenAuthenticator,
} from './types.js';
