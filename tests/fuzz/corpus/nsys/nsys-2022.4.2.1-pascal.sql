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
INSERT INTO PROCESSES VALUES(80664854528,4808,'python3');
CREATE TABLE EXPORT_META_DATA (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of export meta-data record
    value                       TEXT                                   -- Value of export meta-data record
);
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_PRODUCT_VERSION','2022.4.2.1');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_PRODUCT_DATE','2022.4');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION','3.0.0');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION_MINOR','0');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION_MICRO','0');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION_CKSUM','4042420554 115894');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_PLATFORM','linux-desktop');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_ARCH','x64');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_TIME','0.02');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_TIME_UTC','2022-11-14T09:30:12');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_TIME_LOCAL','2022-11-14T10:30:12');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_HOST','h200-node');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_USER','smtop');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_INPUT_FILE','report.nsys-rep');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_OUTUPT_FILE','report.sqlite');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_INPUT_PATH','report.nsys-rep');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_OUTUPT_PATH','report.sqlite');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_INPUT_PATH_ABS','/home/smtop/report.nsys-rep');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_OUTUPT_PATH_ABS','/home/smtop/report.sqlite');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_OVERWRITE','true');
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_LAZY','true');
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    -- Nsys event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value
    name                        TEXT,                                  -- Enum symbol name
    label                       TEXT                                   -- Enum human name
);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(33,'NvtxCategory','NvtxCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(75,'NvtxDomainCreate','NvtxDomainCreate');
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT                                   -- Start of the capture in local time of target.
);
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
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'Tesla P100-PCIE-16GB','0000:00:05.0',1,4194304,17071734784,732160000000,1328500000,56,NULL,'GPU-1a2b3c4d-5e6f-4708-9a1b-2c3d4e5f6a7b',NULL,'GP100',0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,65536,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,6,0,6,0);
CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL                     -- Context ID.
);
INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES(7,0,0,4808,0,1);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- Flags for stream creation.
);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,4808,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,4808,1,4294967291,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(21,0,0,4808,1,0,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KRENEL_LAUNCH_TYPE(id)
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
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000000000,1760000000000068000,0,1,7,1,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,101,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000020000,1760000000000050000,0,1,13,2,80664854528,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,102,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000070000,1760000000000138000,0,1,7,3,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,103,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000120000,1760000000000151000,0,1,13,4,80664854528,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,104,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000140000,1760000000000208000,0,1,7,5,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,105,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000210000,1760000000000278000,0,1,7,6,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,106,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000220000,1760000000000252000,0,1,13,7,80664854528,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,107,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000280000,1760000000000348000,0,1,7,8,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,108,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000320000,1760000000000350000,0,1,13,9,80664854528,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,109,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000350000,1760000000000418000,0,1,7,10,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,110,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000451000,0,1,13,11,80664854528,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,111,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000488000,0,1,7,12,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,112,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000490000,1760000000000558000,0,1,7,13,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,113,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000520000,1760000000000552000,0,1,13,14,80664854528,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,114,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000560000,1760000000000628000,0,1,7,15,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,115,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000620000,1760000000000650000,0,1,13,16,80664854528,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,116,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000630000,1760000000000698000,0,1,7,17,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,117,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000700000,1760000000000768000,0,1,7,18,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,118,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000720000,1760000000000751000,0,1,13,19,80664854528,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,119,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000770000,1760000000000838000,0,1,7,20,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,120,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000820000,1760000000000852000,0,1,13,21,80664854528,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,121,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000840000,1760000000000908000,0,1,7,22,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,122,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000910000,1760000000000978000,0,1,7,23,80664854528,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,123,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000920000,1760000000000950000,0,1,13,24,80664854528,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,124,0,NULL,NULL);
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
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1759999999999935000,1759999999999940000,1,80664859337,1,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1759999999999955000,1759999999999960000,1,80664859337,2,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000005000,1760000000000010000,1,80664859337,3,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000055000,1760000000000060000,1,80664859337,4,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000075000,1760000000000080000,1,80664859337,5,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000145000,1760000000000150000,1,80664859337,6,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000155000,1760000000000160000,1,80664859337,7,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000215000,1760000000000220000,1,80664859337,8,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000255000,1760000000000260000,1,80664859337,9,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000285000,1760000000000290000,1,80664859337,10,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000355000,1760000000000360000,1,80664859337,11,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000355000,1760000000000360000,1,80664859337,12,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000425000,1760000000000430000,1,80664859337,13,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000455000,1760000000000460000,1,80664859337,14,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000495000,1760000000000500000,1,80664859337,15,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000555000,1760000000000560000,1,80664859337,16,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000565000,1760000000000570000,1,80664859337,17,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000635000,1760000000000640000,1,80664859337,18,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000655000,1760000000000660000,1,80664859337,19,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000705000,1760000000000710000,1,80664859337,20,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000755000,1760000000000760000,1,80664859337,21,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000775000,1760000000000780000,1,80664859337,22,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000845000,1760000000000850000,1,80664859337,23,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000855000,1760000000000860000,1,80664859337,24,4,0,NULL);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Optional text message for non registered strings.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT                                   -- One of possible payload value union members.
);
INSERT INTO NVTX_EVENTS VALUES(1759999999999999000,NULL,75,NULL,NULL,NULL,'smtop-test',80664859337,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000000000,1760000000000900000,59,NULL,NULL,4285970688,NULL,80664859337,80664859337,10,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000010000,1760000000000410000,59,NULL,NULL,4285970688,'conv1',80664859337,80664859337,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000420000,1760000000000720000,59,NULL,NULL,4285970688,NULL,80664859337,80664859337,11,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000950000,1760000000002950000,59,NULL,NULL,4285970688,NULL,80664859337,80664859337,12,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001000000,1760000000001700000,59,NULL,NULL,4285970688,'forward',80664859337,80664859337,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001750000,1760000000002850000,59,NULL,NULL,4285970688,NULL,80664859337,80664859337,13,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000500000,NULL,34,NULL,NULL,4285970688,'checkpoint',80664859337,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000002990000,NULL,34,NULL,NULL,4285970688,NULL,80664859337,NULL,14,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
COMMIT;
