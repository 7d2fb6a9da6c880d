package dev.ironcore.maintenance.api.compute;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** IronCore {@code compute.ironcore.dev/v1alpha1} MachinePool (cluster-scoped). */
@Group("compute.ironcore.dev")
@Version("v1alpha1")
@Kind("MachinePool")
@Plural("machinepools")
@Singular("machinepool")
public class MachinePool extends CustomResource<MachinePoolSpec, MachinePoolStatus> {}
