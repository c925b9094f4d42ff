/**
 * An in-memory Kubernetes API server on loopback, speaking the real JSON wire protocol,
 * for tests of controllers, informers and anything else that talks to Kubernetes.
 *
 * ```ts
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const kc = server.kubeConfig(); // a @kubernetes/client-node KubeConfig pointing at it
 * // … run the code under test …
 * await server.close();
 * ```
 *
 * @module
 */
import type { TestApiServerFeatureGates } from './feature_gates.js';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes } from 'node:crypto';
import { createSecureServer as createHttp2Server } from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  ApiError,
  errorMessage,
  KubeControllerKitError,
  noopLogger,
  realClock,
} from 'kube-controller-kit';
import type { Clock, KubeObject, Logger, UnstructuredObject } from 'kube-controller-kit';
import { generateTestCertificates } from './certs.js';
import type { TestCertificates } from './certs.js';
import { TestApiServerFaults } from './faults.js';
import type { FaultTarget, WatchSelector } from './faults.js';
import { OpenWatches } from './open_watches.js';
import { bootstrapObjects, builtinResources } from './registry/index.js';
import {
  fieldPathGetter,
  groupResourceKey,
  ResourceRegistry,
} from './registry/resource_registry.js';
import type { FieldGetter, ResourceType } from './registry/resource_registry.js';
import { Authenticator, SYSTEM_MASTERS, TOKEN_USER } from './authentication.js';
import type { UserInfo } from './authentication.js';
import { alwaysAllow, withPrivilegedGroup } from './authorization.js';
import type { AuthorizationMode, Authorizer } from './authorization.js';
import { bootstrapPolicy } from './bootstrap_policy.js';
import { ClusterRoleAggregator } from './clusterrole_aggregation.js';
import { serviceAccountPlugin } from './admission/service_account.js';
import { ServiceAccountController } from './service_account_controller.js';
import { escalationCheckPlugin } from './escalation_check.js';
import { RBAC_GROUP, RbacAuthorizer } from './rbac.js';
import type { Binding, PolicySource, Role } from './rbac.js';
import { HttpGuard } from './http_guard.js';
import { RequestGate } from './request_gate.js';
import {
  ServiceAccountTokens,
  serviceAccountGroups,
  serviceAccountUsername,
} from './service_account_tokens.js';
import type { TokenRequestSpec } from './service_account_tokens.js';
import { ResourceHandlers } from './resource_handlers.js';
import { ResourceStore } from './resource_store.js';
import { relabelVersion } from './admission/admission_review.js';
import { AdmissionChain } from './admission/chain.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission/interfaces.js';
import { mutatingWebhookPlugin } from './admission/mutating_webhook.js';
import { mutatingAdmissionPolicyPlugin } from './admission/mutating_admission_policy.js';
import type { PolicyPluginDeps } from './admission/policy_dispatch.js';
import { validatingAdmissionPolicyPlugin } from './admission/validating_admission_policy.js';
import { validatingWebhookPlugin } from './admission/validating_webhook.js';
import { WebhookEndpoints } from './admission/webhook_client.js';
import { WebhookConverter } from './webhook_converter.js';
import type { InProcessWebhook, WebhookServiceReference } from './admission/webhook_client.js';
import type { WebhookPluginDeps } from './admission/webhook_invocation.js';
import { webhookConfigurationsFor } from './admission/webhook_install.js';
import type { WebhookInstallOptions } from './admission/webhook_install.js';
import { Router } from './router.js';
import type { RecordedRequest } from './router.js';
import { PendingTimers } from './server_context.js';
import type { ServerContext } from './server_context.js';
import { Storage } from './storage.js';
import { crdPrinterColumns, tablePrinters } from './table.js';
import type { WatchConnection } from './watch.js';

export type { RecordedRequest } from './router.js';
export type { InProcessWebhook, WebhookServiceReference } from './admission/webhook_client.js';
export type { WebhookInstallOptions } from './admission/webhook_install.js';

/**
 * An audit annotation admission recorded for a request (webhooks, policies).
 *
 * @group Webhooks
 */
export interface AdmissionAuditAnnotation {
  /** CREATE, UPDATE or DELETE. */
  operation: string;
  /** `group/resource` as in messages: `configmaps`, `widgets.example.com`. */
  resource: string;
  /** The object's namespace ('' when cluster-scoped). */
  namespace: string;
  /** The object's name. */
  name: string;
  /** The key (`<webhook name>/<key>`, or kube-apiserver's own keys). */
  key: string;
  /** The value. */
  value: string;
}

/**
 * Authentication the server requires. Without any, requests without credentials are
 * anonymous (`system:anonymous` in `system:unauthenticated`, as a SelfSubjectReview
 * reports); what anyone may do is decided by the server's `authorization` mode.
 *
 * @group Users and authorization
 */
export interface TestApiServerAuth {
  /** Require `Authorization: Bearer <token>`; the token stands for `test-user` in `system:masters`. */
  token?: string;
  /**
   * Require a client certificate signed by the server's test CA (needs HTTPS); its user is
   * the certificate's CN (`test-user` for the one `kubeConfig()` carries), its groups the
   * certificate's organizations.
   */
  clientCertificate?: boolean;
}

/**
 * Options of {@link startTestApiServer}.
 *
 * @group Server
 */
export interface TestApiServerOptions {
  /** Serve HTTPS with throwaway certificates (default false; implied by `clientCertificate`). */
  https?: boolean;
  /**
   * Over HTTPS, offer HTTP/2 (ALPN `h2`) beside HTTP/1.1, as kube-apiserver does: clients
   * that prefer it (kubectl, client-go, this library's transport) multiplex every request
   * and watch on one connection. `false` serves HTTP/1.1 only. Default true.
   */
  http2?: boolean;
  /** Required authentication (default none). */
  auth?: TestApiServerAuth;
  /** Port to bind on 127.0.0.1 (default 0: a free port). */
  port?: number;
  /** Clock for timestamps, bookmarks, watch timeouts and latency (default the real one). */
  clock?: Clock;
  /** Logger (default silent). */
  logger?: Logger;
  /**
   * Interval of BOOKMARK events on watches that allow them (default 60 000 ms). A watch with
   * `timeoutSeconds` also gets one 2 s before it times out. As from kube-apiserver, a
   * bookmark is sent only once the resource has changed since the watch went live (after
   * its replayed or initial events), delivered to this watch or not.
   */
  bookmarkIntervalMs?: number;
  /** Change events kept for watch replay; older ones are compacted (default 100 000). */
  historySize?: number;
  /** Namespaces that exist at start (default `default`, `kube-system`, `kube-public`). */
  namespaces?: string[];
  /** Largest request body accepted (default 3 MiB, as kube-apiserver). */
  maxBodyBytes?: number;
  /** How long a list at a future resourceVersion waits before 504 (default 200 ms). */
  tooLargeResourceVersionWaitMs?: number;
  /**
   * Model kube-apiserver's watch cache for lists (default true): a list at resourceVersion
   * `"0"` is served whole from the cache and its `limit` is ignored. `false` serves it in
   * pages at the latest version, as kube-apiserver does with `--watch-cache=false` — what
   * makes a reflector's paged initial list really paged.
   */
  watchCache?: boolean;
  /**
   * Run a garbage collector as kube-controller-manager's does (default true): when an
   * object goes, its dependents (objects naming it in `metadata.ownerReferences`) with no
   * other owner left are deleted; `propagationPolicy: Foreground` deletes the dependents
   * first, `Orphan` keeps them and drops their reference. `false`: no collector, as with
   * envtest or a bare apiextensions-apiserver (a Foreground or Orphan delete then stays
   * held by its `foregroundDeletion` or `orphan` finalizer).
   */
  garbageCollection?: boolean;
  /**
   * Webhook configurations to install at start, pointing at a webhook server the test
   * runs (the envtest pattern; see {@link TestApiServer.installWebhooks}).
   */
  webhooks?: WebhookInstallOptions;
  /**
   * How requests are authorized, as kube-apiserver's `--authorization-mode` (default
   * `AlwaysAllow`: everyone may do everything). `RBAC` allows what Roles and
   * ClusterRoles bound to the user grant, creates kube-apiserver's bootstrap roles
   * (`cluster-admin`, `admin`, `edit`, `view`, `system:auth-delegator`, …), keeps
   * aggregated ClusterRoles up to date and refuses privilege escalation through RBAC
   * writes. `system:masters` may always do everything; the server's own kubeconfig is in
   * it (with `RBAC` and no `auth.token`, the server makes an admin token for it).
   */
  authorization?: AuthorizationMode;
  /**
   * Alpha features to switch on, as kube-apiserver's `--feature-gates` (all off by
   * default): `{ ShardedListAndWatch: true }` makes lists, watches and deletecollection
   * honour `shardSelector` (KEP-5866).
   */
  featureGates?: TestApiServerFeatureGates;
}

/**
 * Who {@link TestApiServer.addUser} makes a kubeconfig for.
 *
 * @group Users and authorization
 */
export type TestUser =
  | {
      /** The user name. */
      username: string;
      /** The groups (`system:authenticated` is added). */
      groups?: string[];
      /** The uid. */
      uid?: string;
      /** Extra user information. */
      extra?: Record<string, string[]>;
    }
  | {
      /** A ServiceAccount: its token is issued by the server (TokenRequest). */
      serviceAccount: {
        /** Its namespace. */
        namespace: string;
        /** Its name. */
        name: string;
      };
      /** Create the ServiceAccount when it does not exist (default true). */
      create?: boolean;
      /** The token's lifetime in seconds (default 86 400). */
      expirationSeconds?: number;
      /** The token's audiences (default the API server's). */
      audiences?: string[];
    };

/**
 * Credentials for a user of the test API server, made by {@link TestApiServer.addUser}.
 *
 * @group Users and authorization
 */
export interface TestUserCredentials {
  /** Who the server takes requests with these credentials to come from. */
  readonly user: UserInfo;
  /** The bearer token. */
  readonly token: string;
  /** A KubeConfig for this user, with this server as its current context. */
  kubeConfig(namespace?: string): KubeConfig;
  /** Writes a kubeconfig file (mode 0600) for this user, as `writeKubeconfig` does. */
  writeKubeconfig(path: string): Promise<void>;
}

/**
 * Names one resource for the in-process helpers: `pods`, `deployments.apps`, or parts.
 *
 * @group Server
 */
export type ResourceRef =
  | string
  | {
      /** API group; omitted or `''` for the core group. */
      group?: string;
      /** Plural resource name. */
      resource: string;
    };

/**
 * A running test API server.
 *
 * @group Start here
 */
export interface TestApiServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Fault injection controls. */
  readonly faults: TestApiServerFaults;
  /** The TLS material when serving HTTPS. */
  readonly certificates: TestCertificates | undefined;
  /** The latest resourceVersion (as the number it is internally). */
  readonly resourceVersion: number;
  /** A @kubernetes/client-node KubeConfig with this server as its current context. */
  kubeConfig(namespace?: string): KubeConfig;
  /**
   * Writes a kubeconfig file (mode 0600) that kubectl, client-go, client-node 1.x and 2.x
   * and this library all accept: over plain http it sets `insecure-skip-tls-verify: true`
   * (client-node refuses http without it), over https it carries the test CA, and it
   * holds the token or client certificate the server requires.
   */
  writeKubeconfig(path: string): Promise<void>;
  /**
   * Creates an object in-process (no HTTP; status kept as given). Returns the stored copy.
   * `T` is any object type, a generated interface too: `server.create<Backup>(ref, backup)`.
   */
  create<T extends object = UnstructuredObject>(resource: ResourceRef, obj: T): T;
  /** Creates many objects in-process without returning copies (fast seeding for benchmarks). */
  seed(resource: ResourceRef, objects: Iterable<UnstructuredObject>): void;
  /** Replaces an object in-process (status too). Honours a resourceVersion precondition. */
  update<T extends object = UnstructuredObject>(resource: ResourceRef, obj: T): T;
  /** Gets an object in-process, or undefined; `T` as for `create` (`get<Backup>(…)`). */
  get<T extends object = UnstructuredObject>(
    resource: ResourceRef,
    name: string,
    namespace?: string,
  ): T | undefined;
  /** Lists objects in-process, in key order. */
  list<T extends object = UnstructuredObject>(resource: ResourceRef, namespace?: string): T[];
  /** Deletes an object in-process (finalizers still hold it). Returns false when absent. */
  delete(resource: ResourceRef, name: string, namespace?: string): boolean;
  /** Makes a field path selectable on a resource (optionally with a custom getter). */
  registerFieldSelector(resource: ResourceRef, fieldPath: string, getter?: FieldGetter): void;
  /**
   * Number of open watches, optionally of one resource; 0 for a resource that is not
   * served (e.g. one whose CustomResourceDefinition was deleted).
   */
  watchCount(resource?: ResourceRef): number;
  /** Resolves when at least `count` watches of a resource are open. */
  waitForWatch(resource: ResourceRef, count?: number, signal?: AbortSignal): Promise<void>;
  /**
   * Credentials for another user, in one call (envtest's `AddUser`): a user with chosen
   * groups (a static bearer token the server now accepts), or a ServiceAccount (created if
   * missing; its token issued by the server, as TokenRequest issues it).
   */
  addUser(user: TestUser): TestUserCredentials;
  /**
   * Issues a ServiceAccount token as the TokenRequest subresource does.
   *
   * @throws `ApiError` 404 when the ServiceAccount does not exist.
   */
  createToken(namespace: string, name: string, spec?: TokenRequestSpec): string;
  /** Every request handled so far (for assertions); cleared by `clearRequests()`. */
  readonly requests: readonly RecordedRequest[];
  /** Forgets the recorded requests. */
  clearRequests(): void;
  /**
   * Makes a Service that webhook configurations (or a CRD's conversion webhook) name
   * reachable: calls to `https://<name>.<namespace>.svc:<port><path>` go to `target`, a
   * local HTTPS address (`https://127.0.0.1:PORT`, its certificate checked against the
   * configuration's caBundle for the name `<name>.<namespace>.svc`), or an in-process
   * handler (no TLS, same semantics: the review crosses as JSON, the timeout holds).
   */
  registerService(service: WebhookServiceReference, target: string | InProcessWebhook): void;
  /**
   * Installs webhook configurations pointing at a webhook server the test runs, as
   * envtest's `WebhookInstallOptions`: every `clientConfig` becomes `<baseUrl><path>`, a
   * CRD conversion webhook `<baseUrl>/convert`, the caBundle the given CA.
   */
  installWebhooks(options: WebhookInstallOptions): void;
  /** The audit annotations admission recorded (webhooks' `auditAnnotations`, fail-open marks). */
  readonly auditAnnotations: readonly AdmissionAuditAnnotation[];
  /** Stops the server: ends every watch, socket and timer. */
  close(): Promise<void>;
}

/**
 * A failure of the in-process helpers or of the server's start.
 *
 * @group Server
 */
export class TestApiServerError extends KubeControllerKitError {}

/** A user entry of a kubeconfig the server writes. */
interface KubeconfigUser {
  name: string;
  token?: string;
  certData?: string;
  keyData?: string;
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

class TestApiServerImpl implements TestApiServer, FaultTarget {
  url = '';
  readonly faults: TestApiServerFaults;
  certificates: TestCertificates | undefined;
  readonly #storage: Storage;
  readonly #registry = new ResourceRegistry();
  /** Converts custom resources through their CRD's conversion webhook. */
  readonly #converter: WebhookConverter;
  readonly #store: ResourceStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #options: TestApiServerOptions;
  readonly #watches = new OpenWatches();
  readonly #timers: PendingTimers;
  readonly #router: Router;
  readonly #authenticator: Authenticator;
  readonly #serviceAccountTokens: ServiceAccountTokens;
  /** The token the server's own kubeconfig carries (undefined: none). */
  readonly #adminToken: string | undefined;
  #server: Server | undefined;
  /** HTTP/2 sessions and TLS sockets, closed by `restart` and `close` (the HTTP/2 server has no `closeAllConnections`). */
  readonly #sessions = new Set<ServerHttp2Session>();
  readonly #sockets = new Set<Socket>();
  #closed = false;
  #requests: RecordedRequest[] = [];
  readonly #endpoints = new WebhookEndpoints();
  readonly #auditAnnotations: AdmissionAuditAnnotation[] = [];

  constructor(options: TestApiServerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#log = options.logger ?? noopLogger;
    this.#timers = new PendingTimers(this.#clock);
    this.#storage = new Storage({ historySize: options.historySize ?? 100_000 });
    for (const t of builtinResources()) this.#registry.add(t);
    this.#store = new ResourceStore(
      this.#storage,
      this.#registry,
      this.#clock,
      options.watchCache ?? true,
      options.garbageCollection ?? true,
    );
    this.#converter = new WebhookConverter(this.#endpoints, (type) =>
      type.crdName === undefined
        ? undefined
        : this.#storage.get(
            groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions'),
            type.crdName,
          )?.obj,
    );
    this.#store.converter = this.#converter;
    this.#store.admission = this.#admissionChain();
    this.faults = new TestApiServerFaults(this);
    const rbacMode = options.authorization === 'RBAC';
    const aggregator = rbacMode ? this.#clusterRoleAggregator() : undefined;
    const serviceAccounts = this.#serviceAccountController();
    this.#storage.onChange((e) => {
      this.#watches.dispatch(e);
      if (aggregator !== undefined && e.grKey === groupResourceKey(RBAC_GROUP, 'clusterroles')) {
        aggregator.schedule();
      }
      if (e.grKey === 'namespaces' || (e.grKey === 'serviceaccounts' && e.type === 'DELETED')) {
        serviceAccounts.schedule();
      }
    });
    this.#storage.onDropTable((grKey) => this.#watches.endAll(grKey));
    this.#authenticator = new Authenticator(options.auth);
    this.#serviceAccountTokens = new ServiceAccountTokens(
      this.#clock,
      (resource, ns, name) =>
        this.#storage.get(groupResourceKey('', resource), `${ns}/${name}`)?.obj,
    );
    const tokens = this.#serviceAccountTokens;
    this.#authenticator.useServiceAccountTokens((token, audiences) =>
      tokens.authenticate(token, audiences),
    );
    this.#adminToken = options.auth?.token;
    if (rbacMode && this.#adminToken === undefined) {
      this.#adminToken = randomBytes(24).toString('base64url');
      this.#authenticator.addToken(this.#adminToken, {
        username: TOKEN_USER,
        groups: [SYSTEM_MASTERS],
      });
    }
    let authorizer: Authorizer = withPrivilegedGroup(alwaysAllow);
    if (rbacMode) {
      const rbac = new RbacAuthorizer(this.#policySource());
      authorizer = withPrivilegedGroup(rbac);
      this.#store.authorizer = authorizer;
      this.#store.admission = this.#admissionChain([
        escalationCheckPlugin(authorizer, rbac.resolver),
      ]);
    }
    const ctx: ServerContext = {
      converter: this.#converter,
      registry: this.#registry,
      store: this.#store,
      storage: this.#storage,
      clock: this.#clock,
      log: this.#log,
      watches: this.#watches,
      timers: this.#timers,
      tableContext: (type, version) => ({
        printers: tablePrinters(
          type,
          type.crdName === undefined
            ? undefined
            : crdPrinterColumns(
                this.#storage.get(
                  groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions'),
                  type.crdName,
                )?.obj,
                version,
              ),
        ),
        now: this.#clock.now(),
      }),
      settings: {
        maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
        tooLargeResourceVersionWaitMs: options.tooLargeResourceVersionWaitMs ?? 200,
        bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
        featureGates: { ...options.featureGates },
      },
      authenticator: this.#authenticator,
      authorizer,
      gate: new RequestGate(this.#authenticator, authorizer),
      serviceAccountTokens: this.#serviceAccountTokens,
    };
    this.#router = new Router(ctx, new ResourceHandlers(ctx), {
      faults: this.faults,
      record: (r) => {
        this.#requests.push(r);
        if (this.#requests.length > 10_000) this.#requests.splice(0, 5_000);
      },
    });
    const nsType = this.#type('namespaces');
    for (const ns of options.namespaces ?? ['default', 'kube-system', 'kube-public']) {
      this.#store.writeNow({
        verb: 'create',
        type: nsType,
        version: 'v1',
        namespace: '',
        name: '',
        subresource: '',
        body: { metadata: { name: ns } },
      });
    }
    // kube-apiserver's bootstrap post-start hooks (system PriorityClasses, local APIServices).
    for (const { group, resource, obj } of bootstrapObjects()) {
      const type = this.#type({ group, resource });
      this.#store.writeNow({
        verb: 'create',
        type,
        version: type.versions[0] ?? 'v1',
        namespace: '',
        name: '',
        subresource: '',
        body: obj,
        options: { seed: true },
      });
    }
    serviceAccounts.sync();
    if (rbacMode) {
      const policy = bootstrapPolicy();
      for (const role of policy.clusterRoles)
        this.create({ group: RBAC_GROUP, resource: 'clusterroles' }, role);
      for (const b of policy.clusterRoleBindings) {
        this.create({ group: RBAC_GROUP, resource: 'clusterrolebindings' }, b);
      }
      aggregator?.sync();
    }
    if (options.webhooks !== undefined) this.installWebhooks(options.webhooks);
  }

  /** The roles and bindings the RBAC authorizer reads, straight from storage. */
  #policySource(): PolicySource {
    const key = (resource: string): string => groupResourceKey(RBAC_GROUP, resource);
    return {
      clusterRoleBindings: () =>
        this.#storage.list(key('clusterrolebindings')).map((o) => o.obj as Binding),
      roleBindings: (ns) =>
        this.#storage.list(key('rolebindings'), ns).map((o) => o.obj as Binding),
      clusterRole: (name) => this.#storage.get(key('clusterroles'), name)?.obj,
      role: (ns, name) => this.#storage.get(key('roles'), `${ns}/${name}`)?.obj,
    };
  }

  /** kube-controller-manager's serviceaccounts controller, writing through the store. */
  #serviceAccountController(): ServiceAccountController {
    return new ServiceAccountController({
      namespaces: () => this.#storage.list('namespaces').map((o) => o.obj),
      exists: (ns, name) => this.#storage.get('serviceaccounts', `${ns}/${name}`) !== undefined,
      create: (ns, name) => {
        this.#store.writeNow({
          verb: 'create',
          type: this.#type('serviceaccounts'),
          version: 'v1',
          namespace: ns,
          name: '',
          subresource: '',
          body: { metadata: { name, namespace: ns } },
          options: { seed: true },
        });
      },
    });
  }

  /** The clusterrole-aggregation controller, writing through the store. */
  #clusterRoleAggregator(): ClusterRoleAggregator {
    const key = groupResourceKey(RBAC_GROUP, 'clusterroles');
    return new ClusterRoleAggregator({
      clusterRoles: () => this.#storage.list(key).map((o) => o.obj as Role),
      setRules: (name, rules) => {
        const current = this.#storage.get(key, name);
        if (current === undefined) return;
        const next = { ...structuredClone(current.obj), rules };
        this.#store.writeNow({
          verb: 'update',
          type: this.#type({ group: RBAC_GROUP, resource: 'clusterroles' }),
          version: 'v1',
          namespace: '',
          name,
          subresource: '',
          body: next,
          options: { seed: true },
        });
      },
    });
  }

  /**
   * kube-apiserver's admission order (AllOrderedPlugins): mutation (the
   * MutatingAdmissionPolicies, then the mutating webhooks), the schema of custom resources
   * (pruning, defaulting, OpenAPI and CEL validation), then validation
   * (ValidatingAdmissionPolicies, then the validating webhooks, called in parallel).
   */
  #admissionChain(first: AdmissionPlugin[] = []): AdmissionChain {
    const objects = (resource: string): UnstructuredObject[] =>
      this.#storage
        .list(groupResourceKey('admissionregistration.k8s.io', resource))
        .map((s) => s.obj);
    const record = (attrs: AdmissionAttributes, key: string, value: string): void => {
      this.#auditAnnotations.push({
        operation: attrs.operation === 'delete' ? 'DELETE' : attrs.old ? 'UPDATE' : 'CREATE',
        resource: groupResourceKey(attrs.type.group, attrs.type.resource),
        namespace: attrs.namespace,
        name: attrs.name,
        key,
        value,
      });
      if (this.#auditAnnotations.length > 10_000) this.#auditAnnotations.splice(0, 5_000);
    };
    const namespace = (name: string): UnstructuredObject | undefined =>
      this.#storage.get('namespaces', name)?.obj;
    const webhookDeps = (resource: string): WebhookPluginDeps => ({
      configurations: () => objects(resource),
      namespaceLabels: (name) => namespace(name)?.metadata?.labels,
      endpoints: this.#endpoints,
      convert: relabelVersion,
      convertAsync: async (obj, attrs, version) => {
        const [out] = await this.#converter.convert(attrs.type, [obj], version);
        return out ?? obj;
      },
      recordAuditAnnotation: record,
    });
    const policyDeps = (policies: string, bindings: string): PolicyPluginDeps => ({
      policies: () => objects(policies),
      bindings: () => objects(bindings),
      namespace,
      convert: relabelVersion,
      recordAuditAnnotation: record,
      paramResource: (apiVersion, kind) => {
        const [group, version] = apiVersion.includes('/')
          ? (apiVersion.split('/', 2) as [string, string])
          : ['', apiVersion];
        const type = this.#registry
          .all()
          .find((t) => t.group === group && t.kind === kind && t.versions.includes(version));
        if (type === undefined) return undefined;
        const grKey = groupResourceKey(type.group, type.resource);
        return {
          namespaced: type.namespaced,
          list: (ns) => this.#storage.list(grKey, ns).map((o) => o.obj),
        };
      },
    });
    return new AdmissionChain([
      ...first,
      serviceAccountPlugin({
        serviceAccountExists: (ns, name) =>
          this.#storage.get('serviceaccounts', `${ns}/${name}`) !== undefined,
      }),
      mutatingAdmissionPolicyPlugin(
        policyDeps('mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'),
      ),
      mutatingWebhookPlugin(webhookDeps('mutatingwebhookconfigurations')),
      this.#store.schemaValidation(),
      validatingAdmissionPolicyPlugin(
        policyDeps('validatingadmissionpolicies', 'validatingadmissionpolicybindings'),
      ),
      validatingWebhookPlugin(webhookDeps('validatingwebhookconfigurations')),
    ]);
  }

  get auditAnnotations(): readonly AdmissionAuditAnnotation[] {
    return this.#auditAnnotations;
  }

  registerService(service: WebhookServiceReference, target: string | InProcessWebhook): void {
    this.#endpoints.registerService(service, target);
  }

  installWebhooks(options: WebhookInstallOptions): void {
    for (const config of webhookConfigurationsFor(options)) {
      const kind = config.kind ?? '';
      const resource =
        kind === 'CustomResourceDefinition'
          ? 'customresourcedefinitions.apiextensions.k8s.io'
          : `${kind.toLowerCase()}s.admissionregistration.k8s.io`;
      const existing = this.get(resource, config.metadata?.name ?? '');
      if (existing === undefined) this.create(resource, config);
      else {
        const metadata = { ...config.metadata };
        delete metadata.resourceVersion;
        this.update(resource, { ...config, metadata });
      }
    }
  }

  get resourceVersion(): number {
    return this.#storage.resourceVersion;
  }

  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  clearRequests(): void {
    this.#requests = [];
  }

  async start(): Promise<void> {
    const o = this.#options;
    const useTls = o.https === true || o.auth?.clientCertificate === true;
    let server: Server;
    const guard = new HttpGuard(this.#log, (req, res) => this.#router.handle(req, res));
    const handler = guard.listener;
    if (useTls) {
      this.certificates = await generateTestCertificates();
      const tlsOptions = {
        key: this.certificates.serverKey,
        cert: this.certificates.serverCert,
        ca: this.certificates.caCert,
        requestCert: o.auth?.clientCertificate === true,
        rejectUnauthorized: false,
      };
      if (o.http2 === false) {
        server = createHttpsServer(tlsOptions, handler);
      } else {
        // One listener for both protocols: ALPN picks h2 or HTTP/1.1 per connection, and
        // both reach the same handlers through Node's compatibility request/response.
        const h2 = createHttp2Server({ ...tlsOptions, allowHTTP1: true }, (req, res) =>
          handler(...http1View(req, res)),
        );
        h2.on('session', (session: ServerHttp2Session) => {
          this.#sessions.add(session);
          session.once('close', () => this.#sessions.delete(session));
          session.on('error', () => session.destroy());
        });
        h2.on('secureConnection', (socket: Socket) => {
          this.#sockets.add(socket);
          socket.once('close', () => this.#sockets.delete(socket));
        });
        server = h2 as unknown as Server;
      }
    } else {
      server = createHttpServer(handler);
    }
    server.keepAliveTimeout = 5000;
    guard.attach(server);
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    this.url = `${useTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  // ---------------------------------------------------------------- in-process helpers

  /** The group and plural a reference names, whether or not it is served. */
  #groupResource(ref: ResourceRef): { group: string; resource: string } {
    if (typeof ref !== 'string') return { group: ref.group ?? '', resource: ref.resource };
    const dot = ref.indexOf('.');
    return dot < 0
      ? { group: '', resource: ref }
      : { group: ref.slice(dot + 1), resource: ref.slice(0, dot) };
  }

  #type(ref: ResourceRef): ResourceType {
    const { group, resource } = this.#groupResource(ref);
    const t = this.#registry.byGroupResource(group, resource);
    if (!t) {
      throw new TestApiServerError(
        `the test API server does not serve ${groupResourceKey(group, resource)}; use a built-in resource or create its CustomResourceDefinition first`,
      );
    }
    return t;
  }

  #wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new TestApiServerError(errorMessage(err), { cause: err });
    }
  }

  create<T extends object = UnstructuredObject>(resource: ResourceRef, input: T): T {
    const t = this.#type(resource);
    const obj = input as KubeObject;
    const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
    const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
    const copy = JSON.parse(JSON.stringify(obj)) as UnstructuredObject;
    return this.#wrap(() => JSON.parse(this.#seed(t, version, ns, copy).json) as T);
  }

  /** An in-process create that keeps what it is given (status, managedFields). */
  #seed(type: ResourceType, version: string, namespace: string, obj: UnstructuredObject) {
    return this.#store.writeNow({
      verb: 'create',
      type,
      version,
      namespace,
      name: '',
      subresource: '',
      body: obj,
      options: { seed: true },
    }).stored;
  }

  seed(resource: ResourceRef, objects: Iterable<UnstructuredObject>): void {
    const t = this.#type(resource);
    for (const obj of objects) {
      const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
      const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
      const copy = JSON.parse(JSON.stringify(obj)) as UnstructuredObject;
      this.#wrap(() => this.#seed(t, version, ns, copy));
    }
  }

  update<T extends object = UnstructuredObject>(resource: ResourceRef, input: T): T {
    const t = this.#type(resource);
    const obj = input as KubeObject;
    const ns = obj.metadata?.namespace ?? (t.namespaced ? 'default' : '');
    const version = obj.apiVersion?.split('/').pop() ?? t.versions[0] ?? 'v1';
    return this.#wrap(
      () =>
        structuredClone(
          this.#store.writeNow({
            verb: 'update',
            type: t,
            version,
            namespace: ns,
            name: obj.metadata?.name ?? '',
            subresource: '',
            body: JSON.parse(JSON.stringify(obj)),
            options: { seed: true },
          }).stored.obj,
        ) as T,
    );
  }

  get<T extends object = UnstructuredObject>(
    resource: ResourceRef,
    name: string,
    namespace?: string,
  ): T | undefined {
    const t = this.#type(resource);
    const o = this.#storage.get(
      groupResourceKey(t.group, t.resource),
      t.namespaced ? `${namespace ?? 'default'}/${name}` : name,
    );
    return o ? (structuredClone(o.obj) as T) : undefined;
  }

  list<T extends object = UnstructuredObject>(resource: ResourceRef, namespace?: string): T[] {
    const t = this.#type(resource);
    return this.#storage
      .list(groupResourceKey(t.group, t.resource), t.namespaced ? namespace : undefined)
      .map((o) => structuredClone(o.obj) as T);
  }

  delete(resource: ResourceRef, name: string, namespace?: string): boolean {
    const t = this.#type(resource);
    try {
      this.#store.writeNow({
        verb: 'delete',
        type: t,
        version: t.versions[0] ?? 'v1',
        namespace: namespace ?? (t.namespaced ? 'default' : ''),
        name,
        subresource: '',
      });
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return false;
      throw err;
    }
  }

  registerFieldSelector(resource: ResourceRef, fieldPath: string, getter?: FieldGetter): void {
    this.#type(resource).fieldSelectors.set(fieldPath, getter ?? fieldPathGetter(fieldPath));
  }

  watchCount(resource?: ResourceRef): number {
    // A resource that is no longer served (its CRD was deleted) simply has no open watches.
    return this.#watches.count(resource === undefined ? undefined : this.#groupResource(resource));
  }

  waitForWatch(resource: ResourceRef, count = 1, signal?: AbortSignal): Promise<void> {
    const type = this.#type(resource);
    return this.#watches.waitFor(() => this.#watches.count(type) >= count, signal);
  }

  // ---------------------------------------------------------------- kubeconfig

  kubeConfig(namespace?: string): KubeConfig {
    return this.#kubeConfigFor(this.#adminCredentials(), namespace);
  }

  writeKubeconfig(path: string): Promise<void> {
    return this.#writeKubeconfigFor(path, this.#adminCredentials());
  }

  /** The credentials of the server's own kubeconfig (`test-user`, a superuser). */
  #adminCredentials(): KubeconfigUser {
    const user: KubeconfigUser = { name: 'test-user' };
    if (this.#adminToken !== undefined) user.token = this.#adminToken;
    if (this.#options.auth?.clientCertificate && this.certificates) {
      user.certData = Buffer.from(this.certificates.clientCert).toString('base64');
      user.keyData = Buffer.from(this.certificates.clientKey).toString('base64');
    }
    return user;
  }

  #kubeConfigFor(user: KubeconfigUser, namespace?: string): KubeConfig {
    const kc = new KubeConfig();
    const cluster: { name: string; server: string; skipTLSVerify: boolean; caData?: string } = {
      name: 'test-apiserver',
      server: this.url,
      // client-node refuses plain http unless TLS verification is marked skipped.
      skipTLSVerify: this.certificates === undefined,
    };
    if (this.certificates)
      cluster.caData = Buffer.from(this.certificates.caCert).toString('base64');
    const context: { name: string; cluster: string; user: string; namespace?: string } = {
      name: 'test-apiserver',
      cluster: 'test-apiserver',
      user: user.name,
    };
    if (namespace !== undefined) context.namespace = namespace;
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ ...user }],
      contexts: [context],
      currentContext: 'test-apiserver',
    });
    return kc;
  }

  async #writeKubeconfigFor(path: string, user: KubeconfigUser): Promise<void> {
    const lines = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test-apiserver',
      '  cluster:',
      `    server: ${yamlString(this.url)}`,
    ];
    if (this.certificates) {
      lines.push(
        `    certificate-authority-data: ${Buffer.from(this.certificates.caCert).toString('base64')}`,
      );
    } else {
      // client-node (1.x and 2.x) refuses an http:// server unless TLS verification is
      // marked skipped; kubectl and client-go accept the flag on plain http and ignore it.
      lines.push('    insecure-skip-tls-verify: true');
    }
    lines.push('users:', `- name: ${yamlString(user.name)}`, '  user:');
    let userFields = 0;
    if (user.token !== undefined) {
      lines.push(`    token: ${yamlString(user.token)}`);
      userFields++;
    }
    if (user.certData !== undefined && user.keyData !== undefined) {
      lines.push(
        `    client-certificate-data: ${user.certData}`,
        `    client-key-data: ${user.keyData}`,
      );
      userFields++;
    }
    if (userFields === 0) lines[lines.length - 1] = '  user: {}';
    lines.push(
      'contexts:',
      '- name: test-apiserver',
      '  context:',
      '    cluster: test-apiserver',
      `    user: ${yamlString(user.name)}`,
      'current-context: test-apiserver',
      '',
    );
    await writeFile(path, lines.join('\n'), { mode: 0o600 });
  }

  // ---------------------------------------------------------------- users and tokens

  createToken(namespace: string, name: string, spec?: TokenRequestSpec): string {
    return this.#serviceAccountTokens.issue(namespace, name, spec).token;
  }

  addUser(spec: TestUser): TestUserCredentials {
    let user: UserInfo;
    let token: string;
    if ('serviceAccount' in spec) {
      const { namespace, name } = spec.serviceAccount;
      if (spec.create !== false && this.get('serviceaccounts', name, namespace) === undefined) {
        this.create('serviceaccounts', { metadata: { name, namespace } });
      }
      const tokenSpec: TokenRequestSpec = { expirationSeconds: spec.expirationSeconds ?? 86_400 };
      if (spec.audiences !== undefined) tokenSpec.audiences = spec.audiences;
      token = this.createToken(namespace, name, tokenSpec);
      const uid = this.get('serviceaccounts', name, namespace)?.metadata?.uid;
      user = {
        username: serviceAccountUsername(namespace, name),
        groups: [...serviceAccountGroups(namespace), 'system:authenticated'],
      };
      if (uid !== undefined) user.uid = uid;
    } else {
      token = randomBytes(24).toString('base64url');
      user = { username: spec.username, groups: [...(spec.groups ?? [])] };
      if (spec.uid !== undefined) user.uid = spec.uid;
      if (spec.extra !== undefined) user.extra = structuredClone(spec.extra);
      this.#authenticator.addToken(token, user);
      user = {
        ...user,
        groups: user.groups.includes('system:authenticated')
          ? user.groups
          : [...user.groups, 'system:authenticated'],
      };
    }
    const entry: KubeconfigUser = { name: user.username, token };
    return {
      user,
      token,
      kubeConfig: (namespace?: string) => this.#kubeConfigFor(entry, namespace),
      writeKubeconfig: (path: string) => this.#writeKubeconfigFor(path, entry),
    };
  }

  // ---------------------------------------------------------------- fault target

  #selectWatches(selector: WatchSelector | undefined): WatchConnection[] {
    return this.#watches.select(selector);
  }

  forEachWatch(
    selector: WatchSelector | undefined,
    action: 'end' | 'destroy' | 'pause' | 'resume' | { closeAfter: number } | { write: string },
  ): number {
    const ws = this.#selectWatches(selector);
    for (const w of ws) {
      if (action === 'end') w.end();
      else if (action === 'destroy') w.destroy();
      else if (action === 'pause') w.pause();
      else if (action === 'resume') w.resume();
      else if ('closeAfter' in action) w.closeAfter(action.closeAfter);
      else w.writeRaw(action.write);
    }
    return ws.length;
  }

  compact(): void {
    this.#storage.compact();
  }

  restart(forgetHistory: boolean): void {
    for (const w of this.#selectWatches(undefined)) w.destroy();
    this.#closeAllConnections();
    if (forgetHistory) this.#storage.compact();
  }

  // ---------------------------------------------------------------- close

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#selectWatches(undefined)) w.end();
    this.#timers.cancelAll();
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      this.#closeAllConnections();
    });
  }

  #closeAllConnections(): void {
    const server = this.#server;
    if (server === undefined) return;
    if (typeof server.closeAllConnections === 'function') server.closeAllConnections();
    for (const session of this.#sessions) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
  }
}

/**
 * The HTTP/2 compatibility request and response as the handlers see them. They read and
 * write the same members (`method`, `url`, `headers`, `writeHead`, `write`, `end`,
 * `flushHeaders`, `headersSent`, `destroy`); `req.httpVersionMajor` (2) tells them apart.
 * The HTTP/1.1-only response header `Transfer-Encoding` is dropped (HTTP/2 frames the body
 * itself, and Node refuses connection-specific headers on a stream).
 */
function http1View(
  req: Http2ServerRequest,
  res: Http2ServerResponse,
): [IncomingMessage, ServerResponse] {
  if (req.httpVersionMajor === 2) {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Http2ServerResponse;
    res.writeHead = (code: number, ...rest: unknown[]) => {
      const last = rest[rest.length - 1];
      if (typeof last === 'object' && last !== null && !Array.isArray(last)) {
        const headers: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(last)) {
          const lower = k.toLowerCase();
          if (lower !== 'transfer-encoding' && lower !== 'connection' && lower !== 'keep-alive')
            headers[k] = v;
        }
        rest[rest.length - 1] = headers;
      }
      return writeHead(code, ...rest);
    };
  }
  return [req as unknown as IncomingMessage, res as unknown as ServerResponse];
}

/**
 * Starts an in-memory Kubernetes API server on 127.0.0.1 (a free port unless `port` is
 * given). Close it with `close()` when the test is done.
 *
 * @group Start here
 */
export async function startTestApiServer(
  options: TestApiServerOptions = {},
): Promise<TestApiServer> {
  const server = new TestApiServerImpl(options);
  await server.start();
  return server;
}
