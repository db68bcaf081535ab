"""The checks of deploy/ that no ready-made tool does (run by scripts/deploy-checks.sh, in the venv
.venv-test/, which has PyYAML and jsonschema through kubernetes-validate):

1. The CloudNativePG resources (Cluster, ScheduledBackup). kubernetes-validate knows only the
   built-in kinds and skips these with a warning. Their real schemas are the operator's CRDs (some
   400 KB of YAML, changing with each release); instead, the fields these manifests use are checked
   against a strict subset written from the CRDs of postgresql.cnpg.io/v1 (names, types, enums,
   patterns, required fields): a misspelt or misplaced field is an error, as it would be for
   kubernetes-validate --strict.
2. What the manifests promise each other and issue 15 asks of them: selectors that match the
   pods, probes on /health/live and /health, the migration Job on the Deployment's image and
   Secret, 3 PostgreSQL 15 instances with backups, a kustomization that lists every manifest.
3. compose.yaml: the expected services, their order, and the files it mounts and builds from
   (`docker compose config`, run as well where Docker Compose exists, checks it against the spec).
4. The Dockerfile's shape (hadolint checks its style, not what it ships).

Prints one line per problem; exits 1 if there is any.
"""

import os
import re
import sys

import jsonschema
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEPLOY = os.path.join(ROOT, "deploy")
K8S = os.path.join(DEPLOY, "kubernetes")
problems = []


def problem(where, message):
    problems.append(f"{os.path.relpath(where, ROOT)}: {message}")


def load_all(path):
    with open(path, encoding="utf-8") as f:
        return [doc for doc in yaml.safe_load_all(f) if doc]


# ---- 1. CloudNativePG: a strict subset of the CRDs' schemas ----------------------------------

def obj(properties, required=()):
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


STRING = {"type": "string"}
NAME = {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63}
BOOL = {"type": "boolean"}
STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
# A Kubernetes quantity (resource.Quantity's pattern in the CRDs).
QUANTITY = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern":
            r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"}]}
METADATA = obj({"name": NAME, "namespace": NAME, "labels": STRING_MAP, "annotations": STRING_MAP}, ["name"])
SECRET_KEY = obj({"name": NAME, "key": STRING}, ["name", "key"])
RESOURCES = obj({"requests": {"type": "object", "additionalProperties": QUANTITY},
                 "limits": {"type": "object", "additionalProperties": QUANTITY}})
STORAGE = obj({"size": QUANTITY, "storageClass": STRING, "resizeInUseVolumes": BOOL})

CLUSTER = obj({
    "apiVersion": {"const": "postgresql.cnpg.io/v1"},
    "kind": {"const": "Cluster"},
    "metadata": METADATA,
    "spec": obj({
        "instances": {"type": "integer", "minimum": 1},
        "imageName": STRING,
        "primaryUpdateStrategy": {"enum": ["supervised", "unsupervised"]},
        "primaryUpdateMethod": {"enum": ["switchover", "restart"]},
        "enableSuperuserAccess": BOOL,
        "postgresql": obj({"parameters": STRING_MAP, "pg_hba": {"type": "array", "items": STRING}}),
        "bootstrap": obj({"initdb": obj({
            "database": STRING, "owner": STRING, "secret": obj({"name": NAME}, ["name"]),
            "encoding": STRING, "dataChecksums": BOOL})}),
        "storage": STORAGE,
        "walStorage": STORAGE,
        "resources": RESOURCES,
        "affinity": obj({"enablePodAntiAffinity": BOOL, "topologyKey": STRING,
                         "podAntiAffinityType": {"enum": ["preferred", "required"]}}),
        "backup": obj({
            "retentionPolicy": {"type": "string", "pattern": r"^[1-9][0-9]*[dwm]$"},
            "target": {"enum": ["primary", "prefer-standby"]},
            "barmanObjectStore": obj({
                "destinationPath": {"type": "string", "minLength": 1},
                "endpointURL": STRING,
                "serverName": STRING,
                "s3Credentials": obj({"accessKeyId": SECRET_KEY, "secretAccessKey": SECRET_KEY,
                                      "region": SECRET_KEY, "sessionToken": SECRET_KEY,
                                      "inheritFromIAMRole": BOOL}),
                "wal": obj({"compression": {"enum": ["bzip2", "gzip", "lz4", "snappy", "xz", "zstd"]},
                            "encryption": {"enum": ["AES256", "aws:kms"]},
                            "maxParallel": {"type": "integer", "minimum": 1}}),
                "data": obj({"compression": {"enum": ["bzip2", "gzip", "snappy"]},
                             "encryption": {"enum": ["AES256", "aws:kms"]},
                             "jobs": {"type": "integer", "minimum": 1},
                             "immediateCheckpoint": BOOL}),
            }, ["destinationPath"]),
        }),
    }, ["instances"]),
}, ["apiVersion", "kind", "metadata", "spec"])

SCHEDULED_BACKUP = obj({
    "apiVersion": {"const": "postgresql.cnpg.io/v1"},
    "kind": {"const": "ScheduledBackup"},
    "metadata": METADATA,
    "spec": obj({
        "schedule": STRING,
        "cluster": obj({"name": STRING}, ["name"]),
        "backupOwnerReference": {"enum": ["none", "self", "cluster"]},
        "method": {"enum": ["barmanObjectStore", "volumeSnapshot", "plugin"]},
        "immediate": BOOL,
        "suspend": BOOL,
        "online": BOOL,
        "target": {"enum": ["primary", "prefer-standby"]},
    }, ["cluster", "schedule"]),
}, ["apiVersion", "kind", "metadata", "spec"])

CNPG_SCHEMAS = {"Cluster": CLUSTER, "ScheduledBackup": SCHEDULED_BACKUP}


def check_cnpg(path, doc):
    schema = CNPG_SCHEMAS.get(doc.get("kind"))
    if schema is None:
        problem(path, f"{doc.get('kind')} ({doc.get('apiVersion')}) is not a kind this check knows")
        return
    for error in sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path)):
        where = ".".join(str(p) for p in error.path) or "(top)"
        problem(path, f"{doc['kind']}/{doc.get('metadata', {}).get('name')}: {where}: {error.message}")


# ---- 2. The manifests together -------------------------------------------------------------

def manifests():
    found = {}
    for name in sorted(os.listdir(K8S)):
        if not name.endswith((".yaml", ".yml")) or name == "kustomization.yaml":
            continue
        path = os.path.join(K8S, name)
        for doc in load_all(path):
            found.setdefault(doc.get("kind"), []).append((path, doc))
    return found


def one(found, kind, where=K8S):
    items = found.get(kind, [])
    if len(items) != 1:
        problem(where, f"expected exactly one {kind}, found {len(items)}")
        return None, None
    return items[0]


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def probe_path(container, probe):
    return ((container.get(probe) or {}).get("httpGet") or {}).get("path")


def secret_ref(container, variable):
    for env in container.get("env", []):
        if env.get("name") == variable:
            return ((env.get("valueFrom") or {}).get("secretKeyRef") or {}).get("name")
    return None


def check_kubernetes():
    found = manifests()
    for kind in ("Cluster", "ScheduledBackup"):
        for path, doc in found.get(kind, []):
            check_cnpg(path, doc)

    path, deployment = one(found, "Deployment")
    if deployment:
        spec = deployment["spec"]
        pod = spec["template"]["spec"]
        labels = spec["template"]["metadata"].get("labels", {})
        if spec.get("replicas", 1) < 2:
            problem(path, "the Deployment runs fewer than 2 replicas")
        if not matches(spec["selector"].get("matchLabels"), labels):
            problem(path, "the Deployment's selector does not match its pods' labels")
        (container,) = [c for c in pod["containers"] if c["name"] == "rivers"] or [None]
        if container is None:
            problem(path, "no container named rivers")
            return
        if probe_path(container, "livenessProbe") != "/health/live":
            problem(path, "the liveness probe is not GET /health/live")
        if probe_path(container, "readinessProbe") != "/health":
            problem(path, "the readiness probe is not GET /health")
        for part in ("requests", "limits"):
            if not all((container.get("resources") or {}).get(part, {}).get(r) for r in ("cpu", "memory")):
                problem(path, f"the container has no cpu and memory {part}")
        security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
        if not security.get("runAsNonRoot") or security.get("runAsUser") in (None, 0):
            problem(path, "the pod may run as root")
        if not security.get("readOnlyRootFilesystem"):
            problem(path, "the root file system is writable")
        database_secret = secret_ref(container, "DATABASE_URL")
        if not database_secret:
            problem(path, "DATABASE_URL does not come from a Secret")

        for kind in ("Service", "PodDisruptionBudget"):
            other_path, other = one(found, kind)
            if other:
                selector = other["spec"]["selector"]
                selector = selector.get("matchLabels", selector) if kind == "PodDisruptionBudget" else selector
                if not matches(selector, labels):
                    problem(other_path, f"the {kind}'s selector does not match the Deployment's pods")

        hpa_path, hpa = one(found, "HorizontalPodAutoscaler")
        if hpa:
            target = hpa["spec"]["scaleTargetRef"]
            if (target.get("kind"), target.get("name")) != ("Deployment", deployment["metadata"]["name"]):
                problem(hpa_path, "the autoscaler does not scale the rivers Deployment")
            if hpa["apiVersion"] != "autoscaling/v2" or hpa["spec"].get("minReplicas", 1) < 2:
                problem(hpa_path, "expected autoscaling/v2 with minReplicas of 2 or more")

        job_path, job = one(found, "Job")
        if job:
            (migrate,) = job["spec"]["template"]["spec"]["containers"][:1] or [{}]
            if migrate.get("args") != ["migrate"]:
                problem(job_path, "the Job does not run `rivers migrate`")
            if migrate.get("image") != container.get("image"):
                problem(job_path, "the migration Job's image differs from the Deployment's")
            if secret_ref(migrate, "DATABASE_URL") != database_secret:
                problem(job_path, "the migration Job reads DATABASE_URL from another Secret than the Deployment")

        cluster_path, cluster = one(found, "Cluster")
        if cluster:
            name = cluster["metadata"]["name"]
            cspec = cluster.get("spec", {})
            if cspec.get("instances") != 3:
                problem(cluster_path, "the PostgreSQL cluster does not have 3 instances")
            if not re.search(r":15([.-]|$)", cspec.get("imageName", "")):
                problem(cluster_path, "the PostgreSQL image is not PostgreSQL 15")
            if not (cspec.get("backup") or {}).get("barmanObjectStore"):
                problem(cluster_path, "the PostgreSQL cluster has no backup to object storage")
            if database_secret and database_secret != f"{name}-app":
                problem(path, f"DATABASE_URL comes from {database_secret}, not the cluster's Secret {name}-app")
            backups = found.get("ScheduledBackup", [])
            if not any(b["spec"].get("cluster", {}).get("name") == name for _, b in backups):
                problem(cluster_path, f"no ScheduledBackup backs up the cluster {name}")
            for backup_path, backup in backups:
                if len(str(backup["spec"].get("schedule", "")).split()) != 6:
                    problem(backup_path, "a CloudNativePG schedule has six fields (seconds first)")

    ingress_path, ingress = one(found, "Ingress")
    if ingress:
        services = {s["metadata"]["name"]: s for _, s in found.get("Service", [])}
        for rule in ingress["spec"].get("rules", []):
            for p in rule.get("http", {}).get("paths", []):
                backend = p["backend"]["service"]
                service = services.get(backend["name"])
                ports = {q.get("name") for q in service["spec"]["ports"]} | {q.get("port") for q in service["spec"]["ports"]} if service else set()
                if service is None or (backend["port"].get("name") or backend["port"].get("number")) not in ports:
                    problem(ingress_path, f"the Ingress points at {backend['name']}:{backend['port']}, which no Service has")

    # The kustomization lists every manifest but the migration Job, and nothing that is missing.
    kustomization = os.path.join(K8S, "kustomization.yaml")
    listed = set(load_all(kustomization)[0].get("resources", []))
    present = {n for n in os.listdir(K8S) if n.endswith((".yaml", ".yml")) and n != "kustomization.yaml"}
    for name in sorted(listed - present):
        problem(kustomization, f"lists {name}, which does not exist")
    job_files = {os.path.basename(p) for p, _ in found.get("Job", [])}
    for name in sorted(present - listed - job_files):
        problem(kustomization, f"does not list {name}")
    for name in sorted(listed & job_files):
        problem(kustomization, f"lists the migration Job {name} (it is run on its own before each rollout)")


# ---- 3. compose.yaml -----------------------------------------------------------------------

def check_compose():
    path = os.path.join(DEPLOY, "compose.yaml")
    (compose,) = load_all(path)
    services = compose.get("services", {})
    for name in ("db", "migrate", "nginx"):
        if name not in services:
            problem(path, f"no service {name}")
    servers = [n for n, s in services.items() if s.get("command") == ["serve"]]
    if len(servers) < 2:
        problem(path, f"expected two or more rivers services running `serve`, found {servers}")
    if not str(services.get("db", {}).get("image", "")).startswith("postgres:15"):
        problem(path, "the database is not PostgreSQL 15")
    if services.get("migrate", {}).get("command") != ["migrate"]:
        problem(path, "the migrate service does not run `rivers migrate`")
    for name in servers:
        condition = (services[name].get("depends_on") or {}).get("migrate", {}).get("condition")
        if condition != "service_completed_successfully":
            problem(path, f"{name} does not wait for the migration to succeed")
        build = services[name].get("build") or {}
        context = os.path.normpath(os.path.join(DEPLOY, build.get("context", ".")))
        if not os.path.isfile(os.path.join(context, build.get("dockerfile", "Dockerfile"))):
            problem(path, f"{name} builds from a Dockerfile that does not exist")
        if "DATABASE_URL" not in (services[name].get("environment") or {}):
            problem(path, f"{name} has no DATABASE_URL")
    mounts = [v.split(":")[0] for v in services.get("nginx", {}).get("volumes", []) if v.startswith(".")]
    if "./nginx/rivers.conf" not in mounts:
        problem(path, "nginx does not mount nginx/rivers.conf")
    for source in mounts:
        if not os.path.exists(os.path.join(DEPLOY, source)):
            problem(path, f"nginx mounts {source}, which does not exist")


# ---- 4. The Dockerfile ---------------------------------------------------------------------

def check_dockerfile():
    path = os.path.join(DEPLOY, "Dockerfile")
    text = open(path, encoding="utf-8").read()
    expected = {
        r"(?m)^FROM swift:6\.\d+[-\w.]* AS build$": "builds in the official Swift image",
        r"--static-swift-stdlib --product rivers": "builds the rivers product with the static Swift stdlib",
        r"(?m)^FROM debian:bookworm-slim$": "runs on debian:bookworm-slim",
        r"rivers_RiversServer\.resources": "ships the resource bundle beside the binary",
        r"(?m)^COPY Public ": "ships Public/",
        r"(?m)^COPY Migrations ": "ships Migrations/",
        r'(?m)^ENTRYPOINT \["[^"]*rivers"\]$': "has rivers as its entrypoint",
        r'(?m)^CMD \["serve"\]$': "serves by default",
    }
    for pattern, what in expected.items():
        if not re.search(pattern, text):
            problem(path, f"expected the image to be one that {what}")
    users = re.findall(r"(?m)^USER (\S+)", text)
    if not users or users[-1].split(":")[0] in ("0", "root"):
        problem(path, "the image does not end as a non-root USER")


def main():
    for check, where in ((check_kubernetes, K8S), (check_compose, DEPLOY), (check_dockerfile, DEPLOY)):
        try:
            check()
        except Exception as error:  # a manifest too broken to follow (kubernetes-validate says why)
            problem(where, f"could not be checked: {type(error).__name__}: {error}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
