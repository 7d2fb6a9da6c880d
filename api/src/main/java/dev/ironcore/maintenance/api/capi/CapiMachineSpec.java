package dev.ironcore.maintenance.api.capi;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ironcore.maintenance.api.Extensible;

/** CAPI Machine spec: not read by this product; every field is kept as it is. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapiMachineSpec extends Extensible {}
