package dev.ironcore.maintenance.api.compute;

import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The same MachinePool read as {@code compute.ironcore.dev/v1alpha2} (our storage version, where
 * {@code spec.taints[].timeAdded} exists). Only for API servers that serve v1alpha2; code that
 * takes a {@link MachinePool} accepts it.
 */
@Group("compute.ironcore.dev")
@Version("v1alpha2")
@Kind("MachinePool")
@Plural("machinepools")
@Singular("machinepool")
public class MachinePoolV1alpha2 extends MachinePool {}
