// The REST API of API.md §3 as a table: one row per endpoint. A row names its method and path (`:param`,
// `:param{regex}`), who may call it (access), the schemas of its query, body and path params
// (request-schemas.ts), and its handler (route-handlers.ts). router.ts matches the rows in order and checks a
// row's input before its handler runs. POST /api/auth is not here: it comes before authentication (server.ts).
import { handlers as h, learner, ownSession, type ApiDeps } from "./route-handlers.ts";
import {
  delayBody,
  eventsQuery,
  memberName,
  openSessionBody,
  openTerminalBody,
  partitionBody,
  resetBody,
  slowDiskBody,
  solveBody,
} from "./request-schemas.ts";
import { route, type Route, type RouteSpec } from "../web/router.ts";

/** apiRoutes is API.md §3, in match order: dispatch takes the first row whose path and method match. */
export const apiRoutes: readonly Route<ApiDeps>[] = [
  // Server and labs.
  row({ method: "GET", path: "/api/me", handler: h.me }),
  row({ method: "GET", path: "/api/labs", access: learner, handler: h.labs }),
  row({ method: "GET", path: "/api/labs/:lab", access: learner, handler: h.lab }),
  row({ method: "GET", path: "/api/progress", access: learner, handler: h.progress }),
  row({ method: "GET", path: "/api/labs/:lab/progress", access: learner, handler: h.labProgress }),
  row({ method: "DELETE", path: "/api/labs/:lab/progress", access: learner, handler: h.clearLabProgress }),

  // Sessions.
  row({ method: "GET", path: "/api/sessions", access: learner, handler: h.sessions }),
  row({ method: "POST", path: "/api/sessions", access: learner, body: openSessionBody, handler: h.openSession }),
  row({ method: "GET", path: "/api/sessions/:sid", access: ownSession, handler: h.session }),
  row({ method: "DELETE", path: "/api/sessions/:sid", access: ownSession, handler: h.destroySession }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/reset",
    access: ownSession,
    body: resetBody,
    handler: h.resetSession,
  }),
  row({ method: "GET", path: "/api/sessions/:sid/status", access: ownSession, handler: h.status }),
  row({ method: "GET", path: "/api/sessions/:sid/events", query: eventsQuery, access: ownSession, handler: h.events }),
  row({ method: "GET", path: "/api/sessions/:sid/params", access: ownSession, handler: h.params }),

  // Cluster controls.
  row({
    method: "POST",
    path: "/api/sessions/:sid/members/:member/:action{stop|kill|pause|resume|start|restart|wipe|rejoin|isolate}",
    access: ownSession,
    params: { member: memberName },
    handler: h.memberAction,
  }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/members/:member/delay",
    access: ownSession,
    body: delayBody,
    params: { member: memberName },
    handler: h.delay,
  }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/members/:member/slow-disk",
    access: ownSession,
    body: slowDiskBody,
    params: { member: memberName },
    handler: h.slowDisk,
  }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/partition",
    access: ownSession,
    body: partitionBody,
    handler: h.partition,
  }),
  row({ method: "POST", path: "/api/sessions/:sid/heal", access: ownSession, handler: h.heal }),
  row({ method: "POST", path: "/api/sessions/:sid/members", access: ownSession, handler: h.addMember }),
  row({
    method: "DELETE",
    path: "/api/sessions/:sid/members/:member",
    access: ownSession,
    params: { member: memberName },
    handler: h.removeMember,
  }),
  row({ method: "POST", path: "/api/sessions/:sid/fill-quota", access: ownSession, handler: h.fillQuota }),
  row({ method: "POST", path: "/api/sessions/:sid/free-quota", access: ownSession, handler: h.freeQuota }),

  // The simulated control plane (lab kube status|pods|pause|resume|compact-now|kubelet-restart).
  row({ method: "GET", path: "/api/sessions/:sid/kube/status", access: ownSession, handler: h.kubeStatus }),
  row({ method: "GET", path: "/api/sessions/:sid/kube/pods", access: ownSession, handler: h.kubePods }),
  row({ method: "POST", path: "/api/sessions/:sid/kube/pause", access: ownSession, handler: h.kubePause }),
  row({ method: "POST", path: "/api/sessions/:sid/kube/resume", access: ownSession, handler: h.kubeResume }),
  row({ method: "POST", path: "/api/sessions/:sid/kube/compact-now", access: ownSession, handler: h.kubeCompactNow }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/kube/kubelet-restart/:node{--all|[a-z0-9][a-z0-9.-]{0,62}}",
    access: ownSession,
    handler: h.kubeletRestart,
  }),
  // Static pods: the masters' simulated kubelets (lab kube sync, lab kube static-pods, crictl).
  row({ method: "GET", path: "/api/sessions/:sid/kube/static-pods", access: ownSession, handler: h.staticPods }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/kube/sync/:master{m\\d{1,2}|k8s-master-\\d{1,2}}",
    access: ownSession,
    handler: h.kubeSync,
  }),
  row({
    method: "GET",
    path: "/api/sessions/:sid/kube/containers/:cid{[0-9a-f]{1,64}}/logs",
    access: ownSession,
    handler: h.containerLogs,
  }),

  // Tasks.
  row({ method: "GET", path: "/api/sessions/:sid/tasks", access: ownSession, handler: h.tasks }),
  row({ method: "POST", path: "/api/sessions/:sid/check", access: ownSession, handler: h.checkAll }),
  row({ method: "POST", path: "/api/sessions/:sid/tasks/:task/check", access: ownSession, handler: h.check }),
  row({ method: "POST", path: "/api/sessions/:sid/tasks/:task/hint", access: ownSession, handler: h.hint }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/tasks/:task/solve",
    access: ownSession,
    body: solveBody,
    handler: h.solve,
  }),

  // Terminals.
  row({ method: "GET", path: "/api/sessions/:sid/terminals", access: ownSession, handler: h.terminals }),
  row({
    method: "POST",
    path: "/api/sessions/:sid/terminals",
    access: ownSession,
    body: openTerminalBody,
    handler: h.openTerminal,
  }),
  row({
    method: "DELETE",
    path: "/api/sessions/:sid/terminals/:tid{[a-z0-9-]{1,32}}",
    access: ownSession,
    handler: h.closeTerminal,
  }),
];

/** row types a table row with ApiDeps (TypeScript cannot infer it from the handlers alone). */
function row<P extends string, G = object, B = undefined, Q = undefined>(
  spec: RouteSpec<ApiDeps, P, G, B, Q>,
): Route<ApiDeps> {
  return route(spec);
}
