import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";

// The deployment files at the repository's root and under deploy/: the
// Kubernetes manifests validated against the Kubernetes API's JSON schemas
// (bundled by kubernetes-models), and the facts that tie them together;
// compose.yaml's start order and volumes. scripts/container-test.sh runs the image.
const root = fileURLToPath(new URL("../..", import.meta.url));
const kubernetesFolder = path.join(root, "deploy/kubernetes");

/** A Kubernetes object as parsed from YAML: only what the checks read is typed. */
interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kubernetes-models class of each `apiVersion` and `kind` the manifests use. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1 Deployment": Deployment,
  "autoscaling/v2 HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "batch/v1 Job": Job,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "v1 ConfigMap": ConfigMap,
  "v1 Secret": Secret,
  "v1 Service": Service,
};

/** Validates `object` with its kubernetes-models class; throws naming the field that fails. */
function validate(object: KubernetesObject): void {
  const Model = MODELS[`${object.apiVersion} ${object.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(object as never).validate();
}

function readManifests(): { file: string; object: KubernetesObject }[] {
  return fs
    .readdirSync(kubernetesFolder)
    .filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml")
    .flatMap((file) =>
      parseAllDocuments(fs.readFileSync(path.join(kubernetesFolder, file), "utf8")).map(
        (document) => {
          expect(document.errors, file).toEqual([]);
          return { file, object: document.toJS() as KubernetesObject };
        },
      ),
    );
}

const manifests = readManifests();
function theOne<T>(kind: string): T {
  const found = manifests.filter(({ object }) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]?.object as T;
}

interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name: string; containerPort: number }[];
  envFrom?: ({ secretRef: { name: string } } | { configMapRef: { name: string } })[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  securityContext: { runAsNonRoot: boolean; runAsUser: number };
  containers: Container[];
  terminationGracePeriodSeconds?: number;
}
interface Workload extends KubernetesObject {
  spec: {
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

describe("the Kubernetes manifests (deploy/kubernetes)", () => {
  it.each(manifests.map(({ file, object }) => [`${file}: ${object.kind}`, object] as const))(
    "%s is valid against the Kubernetes schema",
    (_name, object) => {
      expect(() => validate(object)).not.toThrow();
    },
  );

  it("fails the schema for a field of the wrong type or a missing required field", () => {
    const deployment = theOne<Workload>("Deployment");
    expect(() =>
      validate({ ...deployment, spec: { ...deployment.spec, replicas: "two" } }),
    ).toThrow(/replicas/u);
    const { selector: _selector, ...withoutSelector } = deployment.spec;
    expect(() => validate({ ...deployment, spec: withoutSelector })).toThrow(/selector/u);
  });

  it("lists every manifest in kustomization.yaml", () => {
    const kustomization = parse(
      fs.readFileSync(path.join(kubernetesFolder, "kustomization.yaml"), "utf8"),
    ) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(
      [...new Set(manifests.map(({ file }) => file))].sort(),
    );
  });

  it("probes readiness on /readyz and liveness on /healthz of the container's port", () => {
    const container = theOne<Workload>("Deployment").spec.template.spec.containers[0];
    expect(container?.readinessProbe?.httpGet.path).toBe("/readyz");
    expect(container?.livenessProbe?.httpGet.path).toBe("/healthz");
    expect(container?.ports?.map((port) => port.name)).toContain(
      container?.readinessProbe?.httpGet.port,
    );
    expect(container?.ports?.[0]?.containerPort).toBe(8787);
  });

  it("runs the Deployment and the migration Job as non-root on a read-only root filesystem, writing only /data", () => {
    for (const workload of [theOne<Workload>("Deployment"), theOne<Workload>("Job")]) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).not.toBe(0);
      for (const container of pod.containers) {
        expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
        expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
        expect(container.volumeMounts.map((mount) => mount.mountPath)).toEqual(["/data"]);
      }
    }
  });

  it("migrates with the Deployment's image, and both read the database URL from the Secret", () => {
    const deployment = theOne<Workload>("Deployment").spec.template.spec.containers[0];
    const job = theOne<Workload>("Job").spec.template.spec.containers[0];
    expect(job?.image).toBe(deployment?.image);
    expect(job?.command?.join(" ")).toMatch(/persona-admin /u);
    const secret = theOne<KubernetesObject & { stringData: Record<string, string> }>("Secret");
    expect(Object.keys(secret.stringData)).toContain("PERSONA_DATABASE_URL");
    expect(deployment?.envFrom).toContainEqual({ secretRef: { name: secret.metadata.name } });
    expect(job?.env).toContainEqual({
      name: "PERSONA_DATABASE_URL",
      valueFrom: { secretKeyRef: { name: secret.metadata.name, key: "PERSONA_DATABASE_URL" } },
    });
  });

  it("gives the drain its time: the grace period exceeds PERSONA_DRAIN_TIMEOUT_MS", () => {
    const configMap = theOne<KubernetesObject & { data: Record<string, string> }>("ConfigMap");
    const drainSeconds = Number(configMap.data.PERSONA_DRAIN_TIMEOUT_MS) / 1000;
    expect(drainSeconds).toBeGreaterThan(0);
    expect(
      theOne<Workload>("Deployment").spec.template.spec.terminationGracePeriodSeconds,
    ).toBeGreaterThan(drainSeconds);
  });

  it("points the Service, the PodDisruptionBudget and the autoscaler at the Deployment's pods", () => {
    const deployment = theOne<Workload>("Deployment");
    const podLabels = deployment.spec.template.metadata.labels;
    const matches = (selector: Record<string, string>) =>
      Object.entries(selector).every(([label, value]) => podLabels[label] === value);
    expect(matches(deployment.spec.selector?.matchLabels ?? {})).toBe(true);
    const service = theOne<KubernetesObject & { spec: { selector: Record<string, string> } }>(
      "Service",
    );
    expect(matches(service.spec.selector)).toBe(true);
    const budget = theOne<
      KubernetesObject & {
        spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
      }
    >("PodDisruptionBudget");
    expect(matches(budget.spec.selector.matchLabels)).toBe(true);
    const autoscaler = theOne<
      KubernetesObject & {
        spec: {
          scaleTargetRef: { kind: string; name: string };
          minReplicas: number;
          metrics: { resource: { name: string } }[];
        };
      }
    >("HorizontalPodAutoscaler");
    expect(autoscaler.spec.scaleTargetRef).toMatchObject({
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    expect(autoscaler.spec.metrics.map((metric) => metric.resource.name)).toEqual(["cpu"]);
    // The budget never blocks every eviction: the autoscaler keeps more pods than it requires.
    expect(autoscaler.spec.minReplicas).toBeGreaterThan(budget.spec.minAvailable);
  });
});

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  read_only?: boolean;
  environment?: Record<string, string>;
}

describe("compose.yaml", () => {
  const compose = parse(fs.readFileSync(path.join(root, "compose.yaml"), "utf8"), {
    merge: true,
  }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  const services = compose.services;
  const persona = ["persona-1", "persona-2"];

  it("has PostgreSQL, Redis, a migration step, two instances, a proxy and the example app", () => {
    expect(Object.keys(services).sort()).toEqual(
      ["example-app", "migrate", "persona-1", "persona-2", "postgres", "proxy", "redis"].sort(),
    );
  });

  it("gates every dependency on health, or on the migration's success", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const expected =
          dependency === "migrate" ? "service_completed_successfully" : "service_healthy";
        expect(condition, `${name} → ${dependency}`).toBe(expected);
        // Spelled out in the file: an OCI image (podman's default) carries no HEALTHCHECK.
        if (expected === "service_healthy") {
          expect(services[dependency]?.healthcheck?.test, dependency).toBeDefined();
        }
      }
    }
    expect(Object.keys(services.migrate?.depends_on ?? {})).toContain("postgres");
    expect(Object.keys(services["persona-1"]?.depends_on ?? {})).toEqual(
      expect.arrayContaining(["migrate", "redis"]),
    );
    expect(Object.keys(services.proxy?.depends_on ?? {}).sort()).toEqual(persona);
  });

  it("keeps data in named volumes declared at the top level", () => {
    const named = Object.values(services)
      .flatMap((service) => service.volumes ?? [])
      .map((volume) => volume.split(":")[0] ?? "")
      .filter((source) => !source.startsWith(".") && !source.startsWith("/"));
    expect(named.length).toBeGreaterThan(0);
    expect([...new Set(named)].sort()).toEqual(Object.keys(compose.volumes).sort());
    for (const name of ["postgres", ...persona]) {
      expect(services[name]?.volumes?.length, name).toBeGreaterThan(0);
    }
  });

  it("runs both instances of the one image, read-only, on PostgreSQL and Redis, with their own instance IDs", () => {
    const ids = persona.map((name) => {
      const service = services[name];
      expect(service?.image).toBe(services.migrate?.image);
      expect(service?.read_only).toBe(true);
      expect(service?.environment?.PERSONA_DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:/u);
      expect(service?.environment?.PERSONA_REDIS_URL).toBe("redis://redis:6379");
      return service?.environment?.PERSONA_INSTANCE_ID;
    });
    expect(new Set(ids).size).toBe(2);
    expect(services.migrate?.build).toBeDefined();
    expect(services.migrate?.command?.join(" ")).toMatch(/persona-admin /u);
  });
});
