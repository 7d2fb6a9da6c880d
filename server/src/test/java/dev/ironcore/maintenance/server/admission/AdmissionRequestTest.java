package dev.ironcore.maintenance.server.admission;

import static dev.ironcore.maintenance.server.admission.TestReviews.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class AdmissionRequestTest {

    @Test
    void readsAllFieldsOfAV1Request() {
        ObjectNode review = TestReviews.review("abc", "compute.ironcore.dev", "v1alpha1", "Machine", "machines",
                Operation.UPDATE, json("{'metadata':{'name':'m','namespace':'ns'}}"),
                json("{'metadata':{'name':'m','namespace':'ns'}}"));
        ((ObjectNode) review.get("request")).put("dryRun", true).put("subResource", "status");
        AdmissionRequest request = AdmissionRequest.fromReview(review);
        assertThat(request.uid()).isEqualTo("abc");
        assertThat(request.kind()).isEqualTo(new GroupVersionKind("compute.ironcore.dev", "v1alpha1", "Machine"));
        assertThat(request.kind().toString()).isEqualTo("Machine.compute.ironcore.dev");
        assertThat(request.resource().resource()).isEqualTo("machines");
        assertThat(request.subResource()).isEqualTo("status");
        assertThat(request.operation()).isEqualTo(Operation.UPDATE);
        assertThat(request.name()).isEqualTo("m");
        assertThat(request.namespace()).isEqualTo("ns");
        assertThat(request.dryRun()).isTrue();
        assertThat(request.username()).isEqualTo("tester");
        assertThat(request.oldObject()).isNotNull();
    }

    @Test
    void deleteHasNullObject() {
        AdmissionRequest request = TestReviews.machine(Operation.DELETE, null, json("{'metadata':{'name':'m'}}"));
        assertThat(request.object()).isNull();
        assertThat(request.oldObject()).isNotNull();
    }

    @Test
    void displayNameFallsBackToGenerateName() {
        AdmissionRequest request = TestReviews.machine(Operation.CREATE, json("{'metadata':{'generateName':'m-'}}"), null);
        assertThat(request.name()).isEmpty();
        assertThat(request.displayName()).isEqualTo("m-*");
    }

    @Test
    void rejectsReviewsWithoutRequestUidOrOperation() {
        assertThatThrownBy(() -> AdmissionRequest.fromReview(json("{'kind':'AdmissionReview'}")))
                .isInstanceOf(MalformedReviewException.class).hasMessageContaining("no request");
        assertThatThrownBy(() -> AdmissionRequest.fromReview(json("{'request':{'operation':'CREATE'}}")))
                .isInstanceOf(MalformedReviewException.class).hasMessageContaining("request.uid");
        assertThatThrownBy(() -> AdmissionRequest.fromReview(json("{'request':{'uid':'u','operation':'PATCH'}}")))
                .isInstanceOf(MalformedReviewException.class).hasMessageContaining("\"PATCH\"");
    }
}
