// engine/store/grpc: gRPC over node:http2 (server with an HTTP fallback on the same port, client channel and calls).
export {
  GrpcServer,
  grpcOverheadBytes,
  type FallbackHandler,
  type GrpcServerOptions,
  type ServerCall,
  type ServerWriter,
} from "./server.ts";
export type {
  BidiHandler,
  ClientStreamHandler,
  HandlerFor,
  ServerStreamHandler,
  ServiceHandlers,
  UnaryHandler,
} from "./server.ts";
export {
  GrpcChannel,
  parseTarget,
  type ChannelOptions,
  type ClientTlsOptions,
  type ConnectivityState,
} from "./channel.ts";
export {
  duplexCall,
  serverStreamCall,
  unaryCall,
  type CallOptions,
  type CallTarget,
  type ClientDuplex,
  type ClientReadable,
} from "./client-call.ts";
export { codeName, GrpcError, GrpcStatus, toGrpcError } from "./status.ts";
export type { Metadata } from "./metadata.ts";
