PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO StringIds VALUES(1,'gemm_kernel(const float *, const float *, float *, int, int, int)');
INSERT INTO StringIds VALUES(2,'gemm_kernel');
INSERT INTO StringIds VALUES(3,'_Z11gemm_kernelPKfS0_Pfiii');
INSERT INTO StringIds VALUES(4,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(5,'bias_act_fwd(float *, const float *, int)');
INSERT INTO StringIds VALUES(6,'bias_act_fwd');
INSERT INTO StringIds VALUES(7,'_Z14bias_act_fwdPfPKfi');
INSERT INTO StringIds VALUES(8,'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, at::native::CUDAFunctor_add<float>)');
INSERT INTO StringIds VALUES(9,'vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(10,'inference');
INSERT INTO StringIds VALUES(11,'layer1');
INSERT INTO StringIds VALUES(12,'train_step');
INSERT INTO StringIds VALUES(13,'backward');
INSERT INTO StringIds VALUES(14,'step done');
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.
);
CREATE TABLE PROCESSES (
    -- Names and identifiers of processes captured in the report.

    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.
);
INSERT INTO PROCESSES VALUES(77275856896,4606,'python3');
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.
);
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'Tesla T4','0000:00:04.0',1,4194304,15843721216,320064000000,1590000000,40,NULL,'GPU-3c2b1a09-8f7e-4d6c-a5b4-c3d2e1f0a9b8',NULL,'TU104',0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,65536,65536,32,NULL,32,16,1024,NULL,NULL,NULL,NULL,NULL,NULL,7,5,7,5);
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_VERSION','2024.6.2.225');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.16.1');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000000000,1760000000000068000,0,1,NULL,7,1,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,101,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000020000,1760000000000050000,0,1,NULL,13,2,77275856896,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,102,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000070000,1760000000000138000,0,1,NULL,7,3,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,103,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000120000,1760000000000151000,0,1,NULL,13,4,77275856896,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,104,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000140000,1760000000000208000,0,1,NULL,7,5,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,105,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000210000,1760000000000278000,0,1,NULL,7,6,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,106,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000220000,1760000000000252000,0,1,NULL,13,7,77275856896,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,107,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000280000,1760000000000348000,0,1,NULL,7,8,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,108,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000320000,1760000000000350000,0,1,NULL,13,9,77275856896,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,109,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000350000,1760000000000418000,0,1,NULL,7,10,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,110,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000451000,0,1,NULL,13,11,77275856896,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,111,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000488000,0,1,NULL,7,12,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,112,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000490000,1760000000000558000,0,1,NULL,7,13,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,113,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000520000,1760000000000552000,0,1,NULL,13,14,77275856896,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,114,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000560000,1760000000000628000,0,1,NULL,7,15,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,115,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000620000,1760000000000650000,0,1,NULL,13,16,77275856896,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,116,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000630000,1760000000000698000,0,1,NULL,7,17,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,117,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000700000,1760000000000768000,0,1,NULL,7,18,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,118,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000720000,1760000000000751000,0,1,NULL,13,19,77275856896,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,119,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000770000,1760000000000838000,0,1,NULL,7,20,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,120,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000820000,1760000000000852000,0,1,NULL,13,21,77275856896,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,121,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000840000,1760000000000908000,0,1,NULL,7,22,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,122,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000910000,1760000000000978000,0,1,NULL,7,23,77275856896,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,123,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000920000,1760000000000950000,0,1,NULL,13,24,77275856896,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,124,0,NULL,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1759999999999935000,1759999999999940000,1,77275861503,1,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1759999999999955000,1759999999999960000,1,77275861503,2,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000005000,1760000000000010000,1,77275861503,3,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000055000,1760000000000060000,1,77275861503,4,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000075000,1760000000000080000,1,77275861503,5,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000145000,1760000000000150000,1,77275861503,6,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000155000,1760000000000160000,1,77275861503,7,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000215000,1760000000000220000,1,77275861503,8,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000255000,1760000000000260000,1,77275861503,9,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000285000,1760000000000290000,1,77275861503,10,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000355000,1760000000000360000,1,77275861503,11,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000355000,1760000000000360000,1,77275861503,12,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000425000,1760000000000430000,1,77275861503,13,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000455000,1760000000000460000,1,77275861503,14,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000495000,1760000000000500000,1,77275861503,15,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000555000,1760000000000560000,1,77275861503,16,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000565000,1760000000000570000,1,77275861503,17,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000635000,1760000000000640000,1,77275861503,18,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000655000,1760000000000660000,1,77275861503,19,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000705000,1760000000000710000,1,77275861503,20,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000755000,1760000000000760000,1,77275861503,21,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000775000,1760000000000780000,1,77275861503,22,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000845000,1760000000000850000,1,77275861503,23,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000855000,1760000000000860000,1,77275861503,24,4,0,NULL);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
INSERT INTO NVTX_EVENTS VALUES(1759999999999999000,NULL,75,NULL,NULL,NULL,'smtop-test',77275861503,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000000000,1760000000000900000,59,NULL,NULL,4285970688,NULL,77275861503,77275861503,10,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000010000,1760000000000410000,59,NULL,NULL,4285970688,'conv1',77275861503,77275861503,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000420000,1760000000000720000,59,NULL,NULL,4285970688,NULL,77275861503,77275861503,11,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000950000,1760000000002950000,59,NULL,NULL,4285970688,NULL,77275861503,77275861503,12,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001000000,1760000000001700000,59,NULL,NULL,4285970688,'forward',77275861503,77275861503,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001750000,1760000000002850000,59,NULL,NULL,4285970688,NULL,77275861503,77275861503,13,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000500000,NULL,34,NULL,NULL,4285970688,'checkpoint',77275861503,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000002990000,NULL,34,NULL,NULL,4285970688,NULL,77275861503,NULL,14,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    -- Nsys event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
COMMIT;
