package dev.ironcore.maintenance.server.validation;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static dev.ironcore.maintenance.server.admission.TestReviews.machine;
import static dev.ironcore.maintenance.server.admission.TestReviews.machinePool;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ironcore.maintenance.api.validation.FieldError;
import dev.ironcore.maintenance.server.AdmissionRoutes;
import dev.ironcore.maintenance.server.admission.AdmissionResponse;
import dev.ironcore.maintenance.server.admission.Operation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListFieldValidatorTest {
    private static final ListFieldValidator TAINTS = ListFieldValidator.taints();
    private static final ListFieldValidator TOLERATIONS = ListFieldValidator.tolerations();

    static JsonNode pool(String taints) {
        return json("{'metadata':{'name':'p'},'spec':{'providerID':'x'" + (taints == null ? "" : ",'taints':" + taints)
                + "}}");
    }

    static JsonNode vm(String tolerations) {
        return json("{'metadata':{'name':'m','namespace':'ns'},'spec':{'machinePoolRef':{'name':'p'}"
                + (tolerations == null ? "" : ",'tolerations':" + tolerations) + "}}");
    }

    private static List<String> fields(List<FieldError> errors) {
        return errors.stream().map(FieldError::field).toList();
    }

    @Test
    void validatesTheListOnCreate() {
        assertThat(TAINTS.validate(machinePool(Operation.CREATE, pool(null), null))).isEmpty();
        assertThat(fields(TAINTS.validate(machinePool(Operation.CREATE,
                pool("[{'key':'Bad Key!','effect':'NoSchedule'},{'key':'k','effect':'Later'}]"), null))))
                .containsExactly("spec.taints[0].key", "spec.taints[1].effect");
        assertThat(fields(TOLERATIONS.validate(machine(Operation.CREATE, vm("[{'operator':'In'}]"), null))))
                .containsExactly("spec.tolerations[0].operator");
    }

    @Test
    void anUpdateIsDeniedForNewErrorsOnly() {
        JsonNode legacy = pool("[{'key':'Bad Key!','effect':'NoSchedule'}]");
        // the controller appends the maintenance taints to a pool with a legacy invalid taint
        JsonNode tainted = pool("[{'key':'Bad Key!','effect':'NoSchedule'},"
                + "{'key':'maintenance.ironcore.dev','effect':'NoSchedule'},"
                + "{'key':'maintenance.ironcore.dev','effect':'NoExecute'}]");
        assertThat(TAINTS.validate(machinePool(Operation.UPDATE, tainted, legacy))).isEmpty();
        JsonNode worse = pool("[{'key':'Bad Key!','effect':'NoSchedule'},{'key':'k','effect':'Later'}]");
        assertThat(fields(TAINTS.validate(machinePool(Operation.UPDATE, worse, legacy))))
                .containsExactly("spec.taints[1].effect");
        assertThat(fields(TAINTS.validate(machinePool(Operation.UPDATE, legacy, pool(null)))))
                .containsExactly("spec.taints[0].key");
        JsonNode duplicated = vm("[{'key':'k','operator':'Exists'},{'key':'k','value':'-'}]");
        assertThat(fields(TOLERATIONS.validate(machine(Operation.UPDATE, duplicated, vm("[{'key':'k','value':'-'}]")))))
                .as("the same error at another index is new").containsExactly("spec.tolerations[1].value");
    }

    @Test
    void theWebhookRoutesDenyLikeKubernetesValidation() {
        Map<String, ?> routes = AdmissionRoutes.create(labels -> true);
        ValidatingHandler pools = (ValidatingHandler) routes.get(AdmissionRoutes.VALIDATE_MACHINEPOOL);
        AdmissionResponse denied = pools.handle(machinePool(Operation.CREATE, pool("[{'key':'Bad Key!','effect':"
                + "'NoSchedule'},{'key':'k','effect':'NoExecute'},{'key':'k','effect':'NoExecute'}]"), null));
        assertThat(denied.code()).isEqualTo(422);
        assertThat(denied.message()).startsWith("MachinePool.compute.ironcore.dev \"p\" is invalid: "
                + "[spec.taints[0].key: Invalid value: \"Bad Key!\": name part must consist")
                .endsWith(", spec.taints[2]: Duplicate value: {\"key\":\"k\",\"effect\":\"NoExecute\"}: taints must be"
                        + " unique by key and effect]");
        assertThat(denied.toJson("u").at("/status/details/causes")).hasSize(2);

        ValidatingHandler machines = (ValidatingHandler) routes.get(AdmissionRoutes.VALIDATE_MACHINE);
        AdmissionResponse both = machines.handle(machine(Operation.UPDATE,
                json("{'metadata':{'name':'m'},'spec':{'machinePoolRef':{'name':'b'},'tolerations':[{'value':'v'}]}}"),
                vm(null)));
        assertThat(both.toJson("u").at("/status/details/causes")).hasSize(2);
        assertThat(both.message()).contains("spec.machinePoolRef.name: Forbidden", "spec.tolerations[0].operator");
    }
}
