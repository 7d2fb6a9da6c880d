package dev.ironcore.maintenance.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ironcore.maintenance.testkit.KubectlResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The validating webhooks through a real kube-apiserver, driven with real kubectl. */
class ValidatingWebhookE2ETest {
    private static final String IRONCORE = "machines.compute.ironcore.dev";

    private WebhookEnvironment env;
    private String ns;

    @BeforeEach
    void namespace() {
        env = WebhookEnvironment.get();
        ns = env.newNamespace();
    }

    private String machine(String name, String pool) {
        return """
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  machineClassRef:
                    name: small
                %s""".formatted(name, ns, pool == null ? "" : "  machinePoolRef:\n    name: " + pool + "\n");
    }

    @Test
    void changingMachinePoolRefIsDeniedWithAMessageKubectlPrints() {
        env.apply(machine("m", "pool-a")).orThrow();

        KubectlResult changed = env.cp.kubectl("patch", IRONCORE, "-n", ns, "m", "--type", "merge",
                "-p", "{\"spec\":{\"machinePoolRef\":{\"name\":\"pool-b\"}}}");
        assertThat(changed.ok()).isFalse();
        assertThat(changed.stderr()).contains("The Machine \"m\" is invalid", "spec.machinePoolRef.name: Forbidden",
                "\"pool-a\"", "\"pool-b\"");

        KubectlResult applied = env.apply(machine("m", "pool-b"));
        assertThat(applied.ok()).isFalse();
        assertThat(applied.stderr()).contains("spec.machinePoolRef.name: Forbidden");

        KubectlResult cleared = env.cp.kubectl("patch", IRONCORE, "-n", ns, "m", "--type", "merge",
                "-p", "{\"spec\":{\"machinePoolRef\":null}}");
        assertThat(cleared.ok()).isFalse();
        assertThat(cleared.stderr()).contains("spec.machinePoolRef.name: Forbidden", "cannot be cleared");

        assertThat(env.get(IRONCORE, ns, "m").at("/spec/machinePoolRef/name").asText()).isEqualTo("pool-a");
    }

    @Test
    void bindingAnUnboundMachineAndOtherUpdatesAreAllowed() {
        env.apply(machine("u", null)).orThrow();
        env.apply(machine("u", "pool-a")).orThrow();
        env.kubectl("label", IRONCORE, "-n", ns, "u", "x=y");
        assertThat(env.get(IRONCORE, ns, "u").at("/spec/machinePoolRef/name").asText()).isEqualTo("pool-a");
    }

    @Test
    void machinePoolsPassTheirValidatingWebhook() {
        String pool = ns + "-pool";
        env.apply("""
                apiVersion: compute.ironcore.dev/v1alpha1
                kind: MachinePool
                metadata:
                  name: %s
                spec:
                  providerID: local://%s
                """.formatted(pool, pool)).orThrow();
        env.kubectl("label", "machinepools.compute.ironcore.dev", pool, "x=y");
        env.kubectl("delete", "machinepools.compute.ironcore.dev", pool);
    }
}
