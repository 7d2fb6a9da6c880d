package dev.ironcore.maintenance.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {

    @Test
    void readsUpToTheLimit() throws Exception {
        assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[10]), -1, 10)).hasSize(10);
        assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[0]), 0, 10)).isEmpty();
    }

    @Test
    void rejectsDeclaredOrActualExcess() {
        assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[1]), 11, 10))
                .isInstanceOf(BoundedBody.TooLargeException.class);
        assertThatThrownBy(() -> BoundedBody.read(new ByteArrayInputStream(new byte[11]), -1, 10))
                .isInstanceOf(BoundedBody.TooLargeException.class);
    }

    @Test
    void mediaTypeCheckIgnoresCaseAndParameters() {
        assertThat(AdmissionEndpoint.isJson("application/json")).isTrue();
        assertThat(AdmissionEndpoint.isJson("Application/JSON; charset=utf-8")).isTrue();
        assertThat(AdmissionEndpoint.isJson("text/plain")).isFalse();
        assertThat(AdmissionEndpoint.isJson("application/json-patch+json")).isFalse();
        assertThat(AdmissionEndpoint.isJson(null)).isFalse();
    }
}
