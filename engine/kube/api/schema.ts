// The protobuf schema of the built-in kinds the simulated apiserver stores: one row per Go API struct of
// k8s.io/api (core/v1, apps/v1, batch/v1, coordination/v1, discovery/v1, rbac/v1, scheduling/v1) and
// k8s.io/apimachinery meta/v1 at Kubernetes v1.32, as facts (JSON name, protobuf field number, Go shape).
// Message names are the Go struct names, prefixed by package except for core/v1 ("Pod", "apps.Deployment",
// "meta.ObjectMeta"). Each row lists the struct's fields in Go declaration order (the order the apiserver's
// JSON has) as "<json>[^][?][!] <number> <type>":
//   ^      the field is embedded in JSON (`json:",inline"`) but is its own message in protobuf;
//   ?      the JSON tag has omitempty;
//   !      the JSON tag has omitzero (a zero time is left out rather than written as null);
//   type   s string, i int32, l int64, b bool, y []byte, Time, MicroTime, Quantity, IntOrString, FieldsV1,
//          or a message name; a leading * marks a pointer (written only when set), a trailing [] a repeated
//          field, {s:T} a map with string keys.

/** messages maps a message name to its field row. */
export const messages: Readonly<Record<string, string>> = {
  "apps.DaemonSet": "metadata? 1 meta.ObjectMeta, spec? 2 apps.DaemonSetSpec, status? 3 apps.DaemonSetStatus",
  "apps.DaemonSetCondition": "type 1 s, status 2 s, lastTransitionTime? 3 Time, reason? 4 s, message? 5 s",
  "apps.DaemonSetSpec":
    "selector 1 *meta.LabelSelector, template 2 PodTemplateSpec, updateStrategy? 3 apps.DaemonSetUpdateStrategy, minReadySeconds? 4 i, revisionHistoryLimit? 6 *i",
  "apps.DaemonSetStatus":
    "currentNumberScheduled 1 i, numberMisscheduled 2 i, desiredNumberScheduled 3 i, numberReady 4 i, observedGeneration? 5 l, updatedNumberScheduled? 6 i, numberAvailable? 7 i, numberUnavailable? 8 i, collisionCount? 9 *i, conditions? 10 apps.DaemonSetCondition[]",
  "apps.DaemonSetUpdateStrategy": "type? 1 s, rollingUpdate? 2 *apps.RollingUpdateDaemonSet",
  "apps.Deployment": "metadata? 1 meta.ObjectMeta, spec? 2 apps.DeploymentSpec, status? 3 apps.DeploymentStatus",
  "apps.DeploymentCondition":
    "type 1 s, status 2 s, lastUpdateTime? 6 Time, lastTransitionTime? 7 Time, reason? 4 s, message? 5 s",
  "apps.DeploymentSpec":
    "replicas? 1 *i, selector 2 *meta.LabelSelector, template 3 PodTemplateSpec, strategy? 4 apps.DeploymentStrategy, minReadySeconds? 5 i, revisionHistoryLimit? 6 *i, paused? 7 b, progressDeadlineSeconds? 9 *i",
  "apps.DeploymentStatus":
    "observedGeneration? 1 l, replicas? 2 i, updatedReplicas? 3 i, readyReplicas? 7 i, availableReplicas? 4 i, unavailableReplicas? 5 i, conditions? 6 apps.DeploymentCondition[], collisionCount? 8 *i",
  "apps.DeploymentStrategy": "type? 1 s, rollingUpdate? 2 *apps.RollingUpdateDeployment",
  "apps.ReplicaSet": "metadata? 1 meta.ObjectMeta, spec? 2 apps.ReplicaSetSpec, status? 3 apps.ReplicaSetStatus",
  "apps.ReplicaSetCondition": "type 1 s, status 2 s, lastTransitionTime? 3 Time, reason? 4 s, message? 5 s",
  "apps.ReplicaSetSpec":
    "replicas? 1 *i, minReadySeconds? 4 i, selector 2 *meta.LabelSelector, template? 3 PodTemplateSpec",
  "apps.ReplicaSetStatus":
    "replicas 1 i, fullyLabeledReplicas? 2 i, readyReplicas? 4 i, availableReplicas? 5 i, observedGeneration? 3 l, conditions? 6 apps.ReplicaSetCondition[]",
  "apps.RollingUpdateDaemonSet": "maxUnavailable? 1 *IntOrString, maxSurge? 2 *IntOrString",
  "apps.RollingUpdateDeployment": "maxUnavailable? 1 *IntOrString, maxSurge? 2 *IntOrString",
  "apps.RollingUpdateStatefulSetStrategy": "partition? 1 *i, maxUnavailable? 2 *IntOrString",
  "apps.StatefulSet": "metadata? 1 meta.ObjectMeta, spec? 2 apps.StatefulSetSpec, status? 3 apps.StatefulSetStatus",
  "apps.StatefulSetCondition": "type 1 s, status 2 s, lastTransitionTime? 3 Time, reason? 4 s, message? 5 s",
  "apps.StatefulSetOrdinals": "start 1 i",
  "apps.StatefulSetPersistentVolumeClaimRetentionPolicy": "whenDeleted? 1 s, whenScaled? 2 s",
  "apps.StatefulSetSpec":
    "replicas? 1 *i, selector 2 *meta.LabelSelector, template 3 PodTemplateSpec, volumeClaimTemplates? 4 PersistentVolumeClaim[], serviceName 5 s, podManagementPolicy? 6 s, updateStrategy? 7 apps.StatefulSetUpdateStrategy, revisionHistoryLimit? 8 *i, minReadySeconds? 9 i, persistentVolumeClaimRetentionPolicy? 10 *apps.StatefulSetPersistentVolumeClaimRetentionPolicy, ordinals? 11 *apps.StatefulSetOrdinals",
  "apps.StatefulSetStatus":
    "observedGeneration? 1 l, replicas 2 i, readyReplicas? 3 i, currentReplicas? 4 i, updatedReplicas? 5 i, currentRevision? 6 s, updateRevision? 7 s, collisionCount? 9 *i, conditions? 10 apps.StatefulSetCondition[], availableReplicas 11 i",
  "apps.StatefulSetUpdateStrategy": "type? 1 s, rollingUpdate? 2 *apps.RollingUpdateStatefulSetStrategy",
  "batch.CronJob": "metadata? 1 meta.ObjectMeta, spec? 2 batch.CronJobSpec, status? 3 batch.CronJobStatus",
  "batch.CronJobSpec":
    "schedule 1 s, timeZone? 8 *s, startingDeadlineSeconds? 2 *l, concurrencyPolicy? 3 s, suspend? 4 *b, jobTemplate 5 batch.JobTemplateSpec, successfulJobsHistoryLimit? 6 *i, failedJobsHistoryLimit? 7 *i",
  "batch.CronJobStatus": "active? 1 ObjectReference[], lastScheduleTime? 4 *Time, lastSuccessfulTime? 5 *Time",
  "batch.Job": "metadata? 1 meta.ObjectMeta, spec? 2 batch.JobSpec, status? 3 batch.JobStatus",
  "batch.JobCondition":
    "type 1 s, status 2 s, lastProbeTime? 3 Time, lastTransitionTime? 4 Time, reason? 5 s, message? 6 s",
  "batch.JobSpec":
    "parallelism? 1 *i, completions? 2 *i, activeDeadlineSeconds? 3 *l, podFailurePolicy? 11 *batch.PodFailurePolicy, successPolicy? 16 *batch.SuccessPolicy, backoffLimit? 7 *i, backoffLimitPerIndex? 12 *i, maxFailedIndexes? 13 *i, selector? 4 *meta.LabelSelector, manualSelector? 5 *b, template 6 PodTemplateSpec, ttlSecondsAfterFinished? 8 *i, completionMode? 9 *s, suspend? 10 *b, podReplacementPolicy? 14 *s, managedBy? 15 *s",
  "batch.JobStatus":
    "conditions? 1 batch.JobCondition[], startTime? 2 *Time, completionTime? 3 *Time, active? 4 i, succeeded? 5 i, failed? 6 i, terminating? 11 *i, completedIndexes? 7 s, failedIndexes? 10 *s, uncountedTerminatedPods? 8 *batch.UncountedTerminatedPods, ready? 9 *i",
  "batch.JobTemplateSpec": "metadata? 1 meta.ObjectMeta, spec? 2 batch.JobSpec",
  "batch.PodFailurePolicy": "rules 1 batch.PodFailurePolicyRule[]",
  "batch.PodFailurePolicyOnExitCodesRequirement": "containerName? 1 *s, operator 2 s, values 3 i[]",
  "batch.PodFailurePolicyOnPodConditionsPattern": "type 1 s, status 2 s",
  "batch.PodFailurePolicyRule":
    "action 1 s, onExitCodes? 2 *batch.PodFailurePolicyOnExitCodesRequirement, onPodConditions? 3 batch.PodFailurePolicyOnPodConditionsPattern[]",
  "batch.SuccessPolicy": "rules 1 batch.SuccessPolicyRule[]",
  "batch.SuccessPolicyRule": "succeededIndexes? 1 *s, succeededCount? 2 *i",
  "batch.UncountedTerminatedPods": "succeeded? 1 s[], failed? 2 s[]",
  "coordination.Lease": "metadata? 1 meta.ObjectMeta, spec? 2 coordination.LeaseSpec",
  "coordination.LeaseSpec":
    "holderIdentity? 1 *s, leaseDurationSeconds? 2 *i, acquireTime? 3 *MicroTime, renewTime? 4 *MicroTime, leaseTransitions? 5 *i, strategy? 6 *s, preferredHolder? 7 *s",
  AWSElasticBlockStoreVolumeSource: "volumeID 1 s, fsType? 2 s, partition? 3 i, readOnly? 4 b",
  Affinity: "nodeAffinity? 1 *NodeAffinity, podAffinity? 2 *PodAffinity, podAntiAffinity? 3 *PodAntiAffinity",
  AppArmorProfile: "type 1 s, localhostProfile? 2 *s",
  AttachedVolume: "name 1 s, devicePath 2 s",
  AzureDiskVolumeSource: "diskName 1 s, diskURI 2 s, cachingMode? 3 *s, fsType? 4 *s, readOnly? 5 *b, kind? 6 *s",
  AzureFileVolumeSource: "secretName 1 s, shareName 2 s, readOnly? 3 b",
  CSIVolumeSource:
    "driver 1 s, readOnly? 2 *b, fsType? 3 *s, volumeAttributes? 4 {s:s}, nodePublishSecretRef? 5 *LocalObjectReference",
  Capabilities: "add? 1 s[], drop? 2 s[]",
  CephFSVolumeSource:
    "monitors 1 s[], path? 2 s, user? 3 s, secretFile? 4 s, secretRef? 5 *LocalObjectReference, readOnly? 6 b",
  CinderVolumeSource: "volumeID 1 s, fsType? 2 s, readOnly? 3 b, secretRef? 4 *LocalObjectReference",
  ClientIPConfig: "timeoutSeconds? 1 *i",
  ClusterTrustBundleProjection:
    "name? 1 *s, signerName? 2 *s, labelSelector? 3 *meta.LabelSelector, optional? 5 *b, path 4 s",
  ConfigMap: "metadata? 1 meta.ObjectMeta, immutable? 4 *b, data? 2 {s:s}, binaryData? 3 {s:y}",
  ConfigMapEnvSource: "LocalObjectReference^ 1 LocalObjectReference, optional? 2 *b",
  ConfigMapKeySelector: "LocalObjectReference^ 1 LocalObjectReference, key 2 s, optional? 3 *b",
  ConfigMapNodeConfigSource: "namespace 1 s, name 2 s, uid? 3 s, resourceVersion? 4 s, kubeletConfigKey 5 s",
  ConfigMapProjection: "LocalObjectReference^ 1 LocalObjectReference, items? 2 KeyToPath[], optional? 4 *b",
  ConfigMapVolumeSource:
    "LocalObjectReference^ 1 LocalObjectReference, items? 2 KeyToPath[], defaultMode? 3 *i, optional? 4 *b",
  Container:
    "name 1 s, image? 2 s, command? 3 s[], args? 4 s[], workingDir? 5 s, ports? 6 ContainerPort[], envFrom? 19 EnvFromSource[], env? 7 EnvVar[], resources? 8 ResourceRequirements, resizePolicy? 23 ContainerResizePolicy[], restartPolicy? 24 *s, volumeMounts? 9 VolumeMount[], volumeDevices? 21 VolumeDevice[], livenessProbe? 10 *Probe, readinessProbe? 11 *Probe, startupProbe? 22 *Probe, lifecycle? 12 *Lifecycle, terminationMessagePath? 13 s, terminationMessagePolicy? 20 s, imagePullPolicy? 14 s, securityContext? 15 *SecurityContext, stdin? 16 b, stdinOnce? 17 b, tty? 18 b",
  ContainerImage: "names 1 s[], sizeBytes? 2 l",
  ContainerPort: "name? 1 s, hostPort? 2 i, containerPort 3 i, protocol? 4 s, hostIP? 5 s",
  ContainerResizePolicy: "resourceName 1 s, restartPolicy 2 s",
  ContainerState:
    "waiting? 1 *ContainerStateWaiting, running? 2 *ContainerStateRunning, terminated? 3 *ContainerStateTerminated",
  ContainerStateRunning: "startedAt? 1 Time",
  ContainerStateTerminated:
    "exitCode 1 i, signal? 2 i, reason? 3 s, message? 4 s, startedAt? 5 Time, finishedAt? 6 Time, containerID? 7 s",
  ContainerStateWaiting: "reason? 1 s, message? 2 s",
  ContainerStatus:
    "name 1 s, state? 2 ContainerState, lastState? 3 ContainerState, ready 4 b, restartCount 5 i, image 6 s, imageID 7 s, containerID? 8 s, started? 9 *b, allocatedResources? 10 {s:Quantity}, resources? 11 *ResourceRequirements, volumeMounts? 12 VolumeMountStatus[], user? 13 *ContainerUser, allocatedResourcesStatus? 14 ResourceStatus[]",
  ContainerUser: "linux? 1 *LinuxContainerUser",
  DaemonEndpoint: "Port 1 i",
  DownwardAPIProjection: "items? 1 DownwardAPIVolumeFile[]",
  DownwardAPIVolumeFile:
    "path 1 s, fieldRef? 2 *ObjectFieldSelector, resourceFieldRef? 3 *ResourceFieldSelector, mode? 4 *i",
  DownwardAPIVolumeSource: "items? 1 DownwardAPIVolumeFile[], defaultMode? 2 *i",
  EmptyDirVolumeSource: "medium? 1 s, sizeLimit? 2 *Quantity",
  EndpointAddress: "ip 1 s, hostname? 3 s, nodeName? 4 *s, targetRef? 2 *ObjectReference",
  EndpointPort: "name? 1 s, port 2 i, protocol? 3 s, appProtocol? 4 *s",
  EndpointSubset: "addresses? 1 EndpointAddress[], notReadyAddresses? 2 EndpointAddress[], ports? 3 EndpointPort[]",
  Endpoints: "metadata? 1 meta.ObjectMeta, subsets? 2 EndpointSubset[]",
  EnvFromSource: "prefix? 1 s, configMapRef? 2 *ConfigMapEnvSource, secretRef? 3 *SecretEnvSource",
  EnvVar: "name 1 s, value? 2 s, valueFrom? 3 *EnvVarSource",
  EnvVarSource:
    "fieldRef? 1 *ObjectFieldSelector, resourceFieldRef? 2 *ResourceFieldSelector, configMapKeyRef? 3 *ConfigMapKeySelector, secretKeyRef? 4 *SecretKeySelector",
  EphemeralContainer: "EphemeralContainerCommon^ 1 EphemeralContainerCommon, targetContainerName? 2 s",
  EphemeralContainerCommon:
    "name 1 s, image? 2 s, command? 3 s[], args? 4 s[], workingDir? 5 s, ports? 6 ContainerPort[], envFrom? 19 EnvFromSource[], env? 7 EnvVar[], resources? 8 ResourceRequirements, resizePolicy? 23 ContainerResizePolicy[], restartPolicy? 24 *s, volumeMounts? 9 VolumeMount[], volumeDevices? 21 VolumeDevice[], livenessProbe? 10 *Probe, readinessProbe? 11 *Probe, startupProbe? 22 *Probe, lifecycle? 12 *Lifecycle, terminationMessagePath? 13 s, terminationMessagePolicy? 20 s, imagePullPolicy? 14 s, securityContext? 15 *SecurityContext, stdin? 16 b, stdinOnce? 17 b, tty? 18 b",
  EphemeralVolumeSource: "volumeClaimTemplate? 1 *PersistentVolumeClaimTemplate",
  Event:
    "metadata 1 meta.ObjectMeta, involvedObject 2 ObjectReference, reason? 3 s, message? 4 s, source? 5 EventSource, firstTimestamp? 6 Time, lastTimestamp? 7 Time, count? 8 i, type? 9 s, eventTime? 10 MicroTime, series? 11 *EventSeries, action? 12 s, related? 13 *ObjectReference, reportingComponent 14 s, reportingInstance 15 s",
  EventSeries: "count? 1 i, lastObservedTime? 2 MicroTime",
  EventSource: "component? 1 s, host? 2 s",
  ExecAction: "command? 1 s[]",
  FCVolumeSource: "targetWWNs? 1 s[], lun? 2 *i, fsType? 3 s, readOnly? 4 b, wwids? 5 s[]",
  FlexVolumeSource: "driver 1 s, fsType? 2 s, secretRef? 3 *LocalObjectReference, readOnly? 4 b, options? 5 {s:s}",
  FlockerVolumeSource: "datasetName? 1 s, datasetUUID? 2 s",
  GCEPersistentDiskVolumeSource: "pdName 1 s, fsType? 2 s, partition? 3 i, readOnly? 4 b",
  GRPCAction: "port 1 i, service 2 *s",
  GitRepoVolumeSource: "repository 1 s, revision? 2 s, directory? 3 s",
  GlusterfsVolumeSource: "endpoints 1 s, path 2 s, readOnly? 3 b",
  HTTPGetAction: "path? 1 s, port 2 IntOrString, host? 3 s, scheme? 4 s, httpHeaders? 5 HTTPHeader[]",
  HTTPHeader: "name 1 s, value 2 s",
  HostAlias: "ip 1 s, hostnames? 2 s[]",
  HostIP: "ip 1 s",
  HostPathVolumeSource: "path 1 s, type? 2 *s",
  ISCSIVolumeSource:
    "targetPortal 1 s, iqn 2 s, lun 3 i, iscsiInterface? 4 s, fsType? 5 s, readOnly? 6 b, portals? 7 s[], chapAuthDiscovery? 8 b, chapAuthSession? 11 b, secretRef? 10 *LocalObjectReference, initiatorName? 12 *s",
  ImageVolumeSource: "reference? 1 s, pullPolicy? 2 s",
  KeyToPath: "key 1 s, path 2 s, mode? 3 *i",
  Lifecycle: "postStart? 1 *LifecycleHandler, preStop? 2 *LifecycleHandler",
  LifecycleHandler:
    "exec? 1 *ExecAction, httpGet? 2 *HTTPGetAction, tcpSocket? 3 *TCPSocketAction, sleep? 4 *SleepAction",
  LinuxContainerUser: "uid 1 l, gid 2 l, supplementalGroups? 3 l[]",
  LoadBalancerIngress: "ip? 1 s, hostname? 2 s, ipMode? 3 *s, ports? 4 PortStatus[]",
  LoadBalancerStatus: "ingress? 1 LoadBalancerIngress[]",
  LocalObjectReference: "name? 1 s",
  ModifyVolumeStatus: "targetVolumeAttributesClassName? 1 s, status 2 s",
  NFSVolumeSource: "server 1 s, path 2 s, readOnly? 3 b",
  Namespace: "metadata? 1 meta.ObjectMeta, spec? 2 NamespaceSpec, status? 3 NamespaceStatus",
  NamespaceCondition: "type 1 s, status 2 s, lastTransitionTime? 4 Time, reason? 5 s, message? 6 s",
  NamespaceSpec: "finalizers? 1 s[]",
  NamespaceStatus: "phase? 1 s, conditions? 2 NamespaceCondition[]",
  Node: "metadata? 1 meta.ObjectMeta, spec? 2 NodeSpec, status? 3 NodeStatus",
  NodeAddress: "type 1 s, address 2 s",
  NodeAffinity:
    "requiredDuringSchedulingIgnoredDuringExecution? 1 *NodeSelector, preferredDuringSchedulingIgnoredDuringExecution? 2 PreferredSchedulingTerm[]",
  NodeCondition:
    "type 1 s, status 2 s, lastHeartbeatTime? 3 Time, lastTransitionTime? 4 Time, reason? 5 s, message? 6 s",
  NodeConfigSource: "configMap? 2 *ConfigMapNodeConfigSource",
  NodeConfigStatus:
    "assigned? 1 *NodeConfigSource, active? 2 *NodeConfigSource, lastKnownGood? 3 *NodeConfigSource, error? 4 s",
  NodeDaemonEndpoints: "kubeletEndpoint? 1 DaemonEndpoint",
  NodeFeatures: "supplementalGroupsPolicy? 1 *b",
  NodeRuntimeHandler: "name 1 s, features? 2 *NodeRuntimeHandlerFeatures",
  NodeRuntimeHandlerFeatures: "recursiveReadOnlyMounts? 1 *b, userNamespaces? 2 *b",
  NodeSelector: "nodeSelectorTerms 1 NodeSelectorTerm[]",
  NodeSelectorRequirement: "key 1 s, operator 2 s, values? 3 s[]",
  NodeSelectorTerm: "matchExpressions? 1 NodeSelectorRequirement[], matchFields? 2 NodeSelectorRequirement[]",
  NodeSpec:
    "podCIDR? 1 s, podCIDRs? 7 s[], providerID? 3 s, unschedulable? 4 b, taints? 5 Taint[], configSource? 6 *NodeConfigSource, externalID? 2 s",
  NodeStatus:
    "capacity? 1 {s:Quantity}, allocatable? 2 {s:Quantity}, phase? 3 s, conditions? 4 NodeCondition[], addresses? 5 NodeAddress[], daemonEndpoints? 6 NodeDaemonEndpoints, nodeInfo? 7 NodeSystemInfo, images? 8 ContainerImage[], volumesInUse? 9 s[], volumesAttached? 10 AttachedVolume[], config? 11 *NodeConfigStatus, runtimeHandlers? 12 NodeRuntimeHandler[], features? 13 *NodeFeatures",
  NodeSystemInfo:
    "machineID 1 s, systemUUID 2 s, bootID 3 s, kernelVersion 4 s, osImage 5 s, containerRuntimeVersion 6 s, kubeletVersion 7 s, kubeProxyVersion 8 s, operatingSystem 9 s, architecture 10 s",
  ObjectFieldSelector: "apiVersion? 1 s, fieldPath 2 s",
  ObjectReference:
    "kind? 1 s, namespace? 2 s, name? 3 s, uid? 4 s, apiVersion? 5 s, resourceVersion? 6 s, fieldPath? 7 s",
  PersistentVolumeClaim:
    "metadata? 1 meta.ObjectMeta, spec? 2 PersistentVolumeClaimSpec, status? 3 PersistentVolumeClaimStatus",
  PersistentVolumeClaimCondition:
    "type 1 s, status 2 s, lastProbeTime? 3 Time, lastTransitionTime? 4 Time, reason? 5 s, message? 6 s",
  PersistentVolumeClaimSpec:
    "accessModes? 1 s[], selector? 4 *meta.LabelSelector, resources? 2 VolumeResourceRequirements, volumeName? 3 s, storageClassName? 5 *s, volumeMode? 6 *s, dataSource? 7 *TypedLocalObjectReference, dataSourceRef? 8 *TypedObjectReference, volumeAttributesClassName? 9 *s",
  PersistentVolumeClaimStatus:
    "phase? 1 s, accessModes? 2 s[], capacity? 3 {s:Quantity}, conditions? 4 PersistentVolumeClaimCondition[], allocatedResources? 5 {s:Quantity}, allocatedResourceStatuses? 7 {s:s}, currentVolumeAttributesClassName? 8 *s, modifyVolumeStatus? 9 *ModifyVolumeStatus",
  PersistentVolumeClaimTemplate: "metadata? 1 meta.ObjectMeta, spec 2 PersistentVolumeClaimSpec",
  PersistentVolumeClaimVolumeSource: "claimName 1 s, readOnly? 2 b",
  PhotonPersistentDiskVolumeSource: "pdID 1 s, fsType? 2 s",
  Pod: "metadata? 1 meta.ObjectMeta, spec? 2 PodSpec, status? 3 PodStatus",
  PodAffinity:
    "requiredDuringSchedulingIgnoredDuringExecution? 1 PodAffinityTerm[], preferredDuringSchedulingIgnoredDuringExecution? 2 WeightedPodAffinityTerm[]",
  PodAffinityTerm:
    "labelSelector? 1 *meta.LabelSelector, namespaces? 2 s[], topologyKey 3 s, namespaceSelector? 4 *meta.LabelSelector, matchLabelKeys? 5 s[], mismatchLabelKeys? 6 s[]",
  PodAntiAffinity:
    "requiredDuringSchedulingIgnoredDuringExecution? 1 PodAffinityTerm[], preferredDuringSchedulingIgnoredDuringExecution? 2 WeightedPodAffinityTerm[]",
  PodCondition: "type 1 s, status 2 s, lastProbeTime? 3 Time, lastTransitionTime? 4 Time, reason? 5 s, message? 6 s",
  PodDNSConfig: "nameservers? 1 s[], searches? 2 s[], options? 3 PodDNSConfigOption[]",
  PodDNSConfigOption: "name? 1 s, value? 2 *s",
  PodIP: "ip 1 s",
  PodOS: "name 1 s",
  PodReadinessGate: "conditionType 1 s",
  PodResourceClaim: "name 1 s, resourceClaimName? 3 *s, resourceClaimTemplateName? 4 *s",
  PodResourceClaimStatus: "name 1 s, resourceClaimName? 2 *s",
  PodSchedulingGate: "name 1 s",
  PodSecurityContext:
    "seLinuxOptions? 1 *SELinuxOptions, windowsOptions? 8 *WindowsSecurityContextOptions, runAsUser? 2 *l, runAsGroup? 6 *l, runAsNonRoot? 3 *b, supplementalGroups? 4 l[], supplementalGroupsPolicy? 12 *s, fsGroup? 5 *l, sysctls? 7 Sysctl[], fsGroupChangePolicy? 9 *s, seccompProfile? 10 *SeccompProfile, appArmorProfile? 11 *AppArmorProfile, seLinuxChangePolicy? 13 *s",
  PodSpec:
    "volumes? 1 Volume[], initContainers? 20 Container[], containers 2 Container[], ephemeralContainers? 34 EphemeralContainer[], restartPolicy? 3 s, terminationGracePeriodSeconds? 4 *l, activeDeadlineSeconds? 5 *l, dnsPolicy? 6 s, nodeSelector? 7 {s:s}, serviceAccountName? 8 s, serviceAccount? 9 s, automountServiceAccountToken? 21 *b, nodeName? 10 s, hostNetwork? 11 b, hostPID? 12 b, hostIPC? 13 b, shareProcessNamespace? 27 *b, securityContext? 14 *PodSecurityContext, imagePullSecrets? 15 LocalObjectReference[], hostname? 16 s, subdomain? 17 s, affinity? 18 *Affinity, schedulerName? 19 s, tolerations? 22 Toleration[], hostAliases? 23 HostAlias[], priorityClassName? 24 s, priority? 25 *i, dnsConfig? 26 *PodDNSConfig, readinessGates? 28 PodReadinessGate[], runtimeClassName? 29 *s, enableServiceLinks? 30 *b, preemptionPolicy? 31 *s, overhead? 32 {s:Quantity}, topologySpreadConstraints? 33 TopologySpreadConstraint[], setHostnameAsFQDN? 35 *b, os? 36 *PodOS, hostUsers? 37 *b, schedulingGates? 38 PodSchedulingGate[], resourceClaims? 39 PodResourceClaim[], resources? 40 *ResourceRequirements",
  PodStatus:
    "phase? 1 s, conditions? 2 PodCondition[], message? 3 s, reason? 4 s, nominatedNodeName? 11 s, hostIP? 5 s, hostIPs? 16 HostIP[], podIP? 6 s, podIPs? 12 PodIP[], startTime? 7 *Time, initContainerStatuses? 10 ContainerStatus[], containerStatuses? 8 ContainerStatus[], qosClass? 9 s, ephemeralContainerStatuses? 13 ContainerStatus[], resize? 14 s, resourceClaimStatuses? 15 PodResourceClaimStatus[]",
  PodTemplateSpec: "metadata? 1 meta.ObjectMeta, spec? 2 PodSpec",
  PortStatus: "port 1 i, protocol 2 s, error? 3 *s",
  PortworxVolumeSource: "volumeID 1 s, fsType? 2 s, readOnly? 3 b",
  PreferredSchedulingTerm: "weight 1 i, preference 2 NodeSelectorTerm",
  Probe:
    "ProbeHandler^ 1 ProbeHandler, initialDelaySeconds? 2 i, timeoutSeconds? 3 i, periodSeconds? 4 i, successThreshold? 5 i, failureThreshold? 6 i, terminationGracePeriodSeconds? 7 *l",
  ProbeHandler: "exec? 1 *ExecAction, httpGet? 2 *HTTPGetAction, tcpSocket? 3 *TCPSocketAction, grpc? 4 *GRPCAction",
  ProjectedVolumeSource: "sources 1 VolumeProjection[], defaultMode? 2 *i",
  QuobyteVolumeSource: "registry 1 s, volume 2 s, readOnly? 3 b, user? 4 s, group? 5 s, tenant? 6 s",
  RBDVolumeSource:
    "monitors 1 s[], image 2 s, fsType? 3 s, pool? 4 s, user? 5 s, keyring? 6 s, secretRef? 7 *LocalObjectReference, readOnly? 8 b",
  RangeAllocation: "metadata? 1 meta.ObjectMeta, range 2 s, data 3 y",
  ResourceClaim: "name 1 s, request? 2 s",
  ResourceFieldSelector: "containerName? 1 s, resource 2 s, divisor? 3 Quantity",
  ResourceHealth: "resourceID 1 s, health? 2 s",
  ResourceRequirements: "limits? 1 {s:Quantity}, requests? 2 {s:Quantity}, claims? 3 ResourceClaim[]",
  ResourceStatus: "name 1 s, resources? 2 ResourceHealth[]",
  SELinuxOptions: "user? 1 s, role? 2 s, type? 3 s, level? 4 s",
  ScaleIOVolumeSource:
    "gateway 1 s, system 2 s, secretRef 3 *LocalObjectReference, sslEnabled? 4 b, protectionDomain? 5 s, storagePool? 6 s, storageMode? 7 s, volumeName? 8 s, fsType? 9 s, readOnly? 10 b",
  SeccompProfile: "type 1 s, localhostProfile? 2 *s",
  Secret: "metadata? 1 meta.ObjectMeta, immutable? 5 *b, data? 2 {s:y}, stringData? 4 {s:s}, type? 3 s",
  SecretEnvSource: "LocalObjectReference^ 1 LocalObjectReference, optional? 2 *b",
  SecretKeySelector: "LocalObjectReference^ 1 LocalObjectReference, key 2 s, optional? 3 *b",
  SecretProjection: "LocalObjectReference^ 1 LocalObjectReference, items? 2 KeyToPath[], optional? 4 *b",
  SecretVolumeSource: "secretName? 1 s, items? 2 KeyToPath[], defaultMode? 3 *i, optional? 4 *b",
  SecurityContext:
    "capabilities? 1 *Capabilities, privileged? 2 *b, seLinuxOptions? 3 *SELinuxOptions, windowsOptions? 10 *WindowsSecurityContextOptions, runAsUser? 4 *l, runAsGroup? 8 *l, runAsNonRoot? 5 *b, readOnlyRootFilesystem? 6 *b, allowPrivilegeEscalation? 7 *b, procMount? 9 *s, seccompProfile? 11 *SeccompProfile, appArmorProfile? 12 *AppArmorProfile",
  Service: "metadata? 1 meta.ObjectMeta, spec? 2 ServiceSpec, status? 3 ServiceStatus",
  ServiceAccount:
    "metadata? 1 meta.ObjectMeta, secrets? 2 ObjectReference[], imagePullSecrets? 3 LocalObjectReference[], automountServiceAccountToken? 4 *b",
  ServiceAccountTokenProjection: "audience? 1 s, expirationSeconds? 2 *l, path 3 s",
  ServicePort: "name? 1 s, protocol? 2 s, appProtocol? 6 *s, port 3 i, targetPort? 4 IntOrString, nodePort? 5 i",
  ServiceSpec:
    "ports? 1 ServicePort[], selector? 2 {s:s}, clusterIP? 3 s, clusterIPs? 18 s[], type? 4 s, externalIPs? 5 s[], sessionAffinity? 7 s, loadBalancerIP? 8 s, loadBalancerSourceRanges? 9 s[], externalName? 10 s, externalTrafficPolicy? 11 s, healthCheckNodePort? 12 i, publishNotReadyAddresses? 13 b, sessionAffinityConfig? 14 *SessionAffinityConfig, ipFamilies? 19 s[], ipFamilyPolicy? 17 *s, allocateLoadBalancerNodePorts? 20 *b, loadBalancerClass? 21 *s, internalTrafficPolicy? 22 *s, trafficDistribution? 23 *s",
  ServiceStatus: "loadBalancer? 1 LoadBalancerStatus, conditions? 2 meta.Condition[]",
  SessionAffinityConfig: "clientIP? 1 *ClientIPConfig",
  SleepAction: "seconds 1 l",
  StorageOSVolumeSource:
    "volumeName? 1 s, volumeNamespace? 2 s, fsType? 3 s, readOnly? 4 b, secretRef? 5 *LocalObjectReference",
  Sysctl: "name 1 s, value 2 s",
  TCPSocketAction: "port 1 IntOrString, host? 2 s",
  Taint: "key 1 s, value? 2 s, effect 3 s, timeAdded? 4 *Time",
  Toleration: "key? 1 s, operator? 2 s, value? 3 s, effect? 4 s, tolerationSeconds? 5 *l",
  TopologySpreadConstraint:
    "maxSkew 1 i, topologyKey 2 s, whenUnsatisfiable 3 s, labelSelector? 4 *meta.LabelSelector, minDomains? 5 *i, nodeAffinityPolicy? 6 *s, nodeTaintsPolicy? 7 *s, matchLabelKeys? 8 s[]",
  TypedLocalObjectReference: "apiGroup 1 *s, kind 2 s, name 3 s",
  TypedObjectReference: "apiGroup 1 *s, kind 2 s, name 3 s, namespace? 4 *s",
  Volume: "name 1 s, VolumeSource^ 2 VolumeSource",
  VolumeDevice: "name 1 s, devicePath 2 s",
  VolumeMount:
    "name 1 s, readOnly? 2 b, recursiveReadOnly? 7 *s, mountPath 3 s, subPath? 4 s, mountPropagation? 5 *s, subPathExpr? 6 s",
  VolumeMountStatus: "name 1 s, mountPath 2 s, readOnly? 3 b, recursiveReadOnly? 4 *s",
  VolumeProjection:
    "secret? 1 *SecretProjection, downwardAPI? 2 *DownwardAPIProjection, configMap? 3 *ConfigMapProjection, serviceAccountToken? 4 *ServiceAccountTokenProjection, clusterTrustBundle? 5 *ClusterTrustBundleProjection",
  VolumeResourceRequirements: "limits? 1 {s:Quantity}, requests? 2 {s:Quantity}",
  VolumeSource:
    "hostPath? 1 *HostPathVolumeSource, emptyDir? 2 *EmptyDirVolumeSource, gcePersistentDisk? 3 *GCEPersistentDiskVolumeSource, awsElasticBlockStore? 4 *AWSElasticBlockStoreVolumeSource, gitRepo? 5 *GitRepoVolumeSource, secret? 6 *SecretVolumeSource, nfs? 7 *NFSVolumeSource, iscsi? 8 *ISCSIVolumeSource, glusterfs? 9 *GlusterfsVolumeSource, persistentVolumeClaim? 10 *PersistentVolumeClaimVolumeSource, rbd? 11 *RBDVolumeSource, flexVolume? 12 *FlexVolumeSource, cinder? 13 *CinderVolumeSource, cephfs? 14 *CephFSVolumeSource, flocker? 15 *FlockerVolumeSource, downwardAPI? 16 *DownwardAPIVolumeSource, fc? 17 *FCVolumeSource, azureFile? 18 *AzureFileVolumeSource, configMap? 19 *ConfigMapVolumeSource, vsphereVolume? 20 *VsphereVirtualDiskVolumeSource, quobyte? 21 *QuobyteVolumeSource, azureDisk? 22 *AzureDiskVolumeSource, photonPersistentDisk? 23 *PhotonPersistentDiskVolumeSource, projected? 26 *ProjectedVolumeSource, portworxVolume? 24 *PortworxVolumeSource, scaleIO? 25 *ScaleIOVolumeSource, storageos? 27 *StorageOSVolumeSource, csi? 28 *CSIVolumeSource, ephemeral? 29 *EphemeralVolumeSource, image? 30 *ImageVolumeSource",
  VsphereVirtualDiskVolumeSource: "volumePath 1 s, fsType? 2 s, storagePolicyName? 3 s, storagePolicyID? 4 s",
  WeightedPodAffinityTerm: "weight 1 i, podAffinityTerm 2 PodAffinityTerm",
  WindowsSecurityContextOptions:
    "gmsaCredentialSpecName? 1 *s, gmsaCredentialSpec? 2 *s, runAsUserName? 3 *s, hostProcess? 4 *b",
  "discovery.Endpoint":
    "addresses 1 s[], conditions? 2 discovery.EndpointConditions, hostname? 3 *s, targetRef? 4 *ObjectReference, deprecatedTopology? 5 {s:s}, nodeName? 6 *s, zone? 7 *s, hints? 8 *discovery.EndpointHints",
  "discovery.EndpointConditions": "ready? 1 *b, serving? 2 *b, terminating? 3 *b",
  "discovery.EndpointHints": "forZones? 1 discovery.ForZone[]",
  "discovery.EndpointPort": "name? 1 *s, protocol? 2 *s, port? 3 *i, appProtocol? 4 *s",
  "discovery.EndpointSlice":
    "metadata? 1 meta.ObjectMeta, addressType 4 s, endpoints 2 discovery.Endpoint[], ports 3 discovery.EndpointPort[]",
  "discovery.ForZone": "name 1 s",
  "meta.Condition": "type 1 s, status 2 s, observedGeneration? 3 l, lastTransitionTime 4 Time, reason 5 s, message 6 s",
  "meta.LabelSelector": "matchLabels? 1 {s:s}, matchExpressions? 2 meta.LabelSelectorRequirement[]",
  "meta.LabelSelectorRequirement": "key 1 s, operator 2 s, values? 3 s[]",
  "meta.ManagedFieldsEntry":
    "manager? 1 s, operation? 2 s, apiVersion? 3 s, time? 4 *Time, fieldsType? 6 s, fieldsV1? 7 *FieldsV1, subresource? 8 s",
  "meta.ObjectMeta":
    "name? 1 s, generateName? 2 s, namespace? 3 s, selfLink? 4 s, uid? 5 s, resourceVersion? 6 s, generation? 7 l, creationTimestamp?! 8 Time, deletionTimestamp? 9 *Time, deletionGracePeriodSeconds? 10 *l, labels? 11 {s:s}, annotations? 12 {s:s}, ownerReferences? 13 meta.OwnerReference[], finalizers? 14 s[], managedFields? 17 meta.ManagedFieldsEntry[]",
  "meta.OwnerReference": "apiVersion 5 s, kind 1 s, name 3 s, uid 4 s, controller? 6 *b, blockOwnerDeletion? 7 *b",
  "rbac.AggregationRule": "clusterRoleSelectors? 1 meta.LabelSelector[]",
  "rbac.ClusterRole":
    "metadata? 1 meta.ObjectMeta, rules 2 rbac.PolicyRule[], aggregationRule? 3 *rbac.AggregationRule",
  "rbac.ClusterRoleBinding": "metadata? 1 meta.ObjectMeta, subjects? 2 rbac.Subject[], roleRef 3 rbac.RoleRef",
  "rbac.PolicyRule": "verbs 1 s[], apiGroups? 2 s[], resources? 3 s[], resourceNames? 4 s[], nonResourceURLs? 5 s[]",
  "rbac.Role": "metadata? 1 meta.ObjectMeta, rules 2 rbac.PolicyRule[]",
  "rbac.RoleBinding": "metadata? 1 meta.ObjectMeta, subjects? 2 rbac.Subject[], roleRef 3 rbac.RoleRef",
  "rbac.RoleRef": "apiGroup 1 s, kind 2 s, name 3 s",
  "rbac.Subject": "kind 1 s, apiGroup? 2 s, name 3 s, namespace? 4 s",
  "scheduling.PriorityClass":
    "metadata? 1 meta.ObjectMeta, value 2 i, globalDefault? 3 b, description? 4 s, preemptionPolicy? 5 *s",
};

/** groupPrefixes maps an API group to the prefix of its message names. */
export const groupPrefixes: Readonly<Record<string, string>> = {
  "": "",
  apps: "apps.",
  batch: "batch.",
  "coordination.k8s.io": "coordination.",
  "discovery.k8s.io": "discovery.",
  "rbac.authorization.k8s.io": "rbac.",
  "scheduling.k8s.io": "scheduling.",
};
