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
INSERT INTO PROCESSES VALUES(75581358080,4505,'python3');
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
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA A100-SXM4-80GB','0000:07:00.0',1,NULL,85899345920,NULL,NULL,108,NULL,'GPU-0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9',NULL,'GA100',0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,167936,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,8,0,8,0);
INSERT INTO TARGET_INFO_GPU VALUES(0,1,'NVIDIA H100 PCIe','0000:41:00.0',1,NULL,85520809984,NULL,NULL,114,NULL,'GPU-6f1c2a0e-3d5b-4a77-9c1e-8b2f0d4e5a61',NULL,'GH100',1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,233472,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,9,0,9,0);
CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL                     -- Context ID.
);
INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES(7,0,0,4505,1,1);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- Flags for stream creation.
);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,4505,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,4505,1,4294967291,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(21,0,0,4505,1,0,1);
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
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000000000,1760000000000068000,1,1,7,1,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,101,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000020000,1760000000000050000,1,1,13,2,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,102,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000070000,1760000000000138000,1,1,7,3,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,103,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000120000,1760000000000151000,1,1,13,4,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,104,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000140000,1760000000000208000,1,1,7,5,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,105,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000210000,1760000000000278000,1,1,7,6,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,106,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000220000,1760000000000252000,1,1,13,7,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,107,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000280000,1760000000000348000,1,1,7,8,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,108,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000320000,1760000000000350000,1,1,13,9,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,109,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000350000,1760000000000418000,1,1,7,10,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,110,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000451000,1,1,13,11,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,111,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000488000,1,1,7,12,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,112,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000490000,1760000000000558000,1,1,7,13,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,113,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000520000,1760000000000552000,1,1,13,14,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,114,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000560000,1760000000000628000,1,1,7,15,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,115,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000620000,1760000000000650000,1,1,13,16,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,116,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000630000,1760000000000698000,1,1,7,17,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,117,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000700000,1760000000000768000,1,1,7,18,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,118,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000720000,1760000000000751000,1,1,13,19,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,119,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000770000,1760000000000838000,1,1,7,20,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,120,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000820000,1760000000000852000,1,1,13,21,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,121,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000840000,1760000000000908000,1,1,7,22,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,122,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000910000,1760000000000978000,1,1,7,23,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,123,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000920000,1760000000000950000,1,1,13,24,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,124,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000980000,1760000000001048000,1,1,7,25,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,125,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001020000,1760000000001051000,1,1,13,26,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,126,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001050000,1760000000001118000,1,1,7,27,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,127,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001152000,1,1,13,28,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,128,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001188000,1,1,7,29,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,129,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001190000,1760000000001258000,1,1,7,30,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,130,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001220000,1760000000001250000,1,1,13,31,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,131,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001260000,1760000000001328000,1,1,7,32,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,132,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001320000,1760000000001351000,1,1,13,33,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,133,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001330000,1760000000001398000,1,1,7,34,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,134,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001400000,1760000000001468000,1,1,7,35,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,135,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001420000,1760000000001452000,1,1,13,36,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,136,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001470000,1760000000001538000,1,1,7,37,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,137,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001520000,1760000000001550000,1,1,13,38,75581358080,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,138,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001540000,1760000000001608000,1,1,7,39,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,139,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001610000,1760000000001678000,1,1,7,40,75581358080,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,140,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001620000,1760000000001651000,1,1,13,41,75581358080,5,6,7,0,0,72,66,1,1,256,1,1,4096,0,0,0,141,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001720000,1760000000001752000,1,1,13,42,75581358080,8,9,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,142,0,NULL,NULL);
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
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1759999999999991000,1759999999999996000,1,75581362586,1,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000011000,1760000000000016000,1,75581362586,2,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000061000,1760000000000066000,1,75581362586,3,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000111000,1760000000000116000,1,75581362586,4,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000131000,1760000000000136000,1,75581362586,5,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000201000,1760000000000206000,1,75581362586,6,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000211000,1760000000000216000,1,75581362586,7,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000271000,1760000000000276000,1,75581362586,8,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000311000,1760000000000316000,1,75581362586,9,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000341000,1760000000000346000,1,75581362586,10,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000411000,1760000000000416000,1,75581362586,11,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000411000,1760000000000416000,1,75581362586,12,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000481000,1760000000000486000,1,75581362586,13,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000511000,1760000000000516000,1,75581362586,14,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000551000,1760000000000556000,1,75581362586,15,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000611000,1760000000000616000,1,75581362586,16,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000621000,1760000000000626000,1,75581362586,17,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000691000,1760000000000696000,1,75581362586,18,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000711000,1760000000000716000,1,75581362586,19,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000761000,1760000000000766000,1,75581362586,20,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000811000,1760000000000816000,1,75581362586,21,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000831000,1760000000000836000,1,75581362586,22,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000901000,1760000000000906000,1,75581362586,23,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000911000,1760000000000916000,1,75581362586,24,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000000971000,1760000000000976000,1,75581362586,25,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001011000,1760000000001016000,1,75581362586,26,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001041000,1760000000001046000,1,75581362586,27,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001111000,1760000000001116000,1,75581362586,28,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001111000,1760000000001116000,1,75581362586,29,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001181000,1760000000001186000,1,75581362586,30,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001211000,1760000000001216000,1,75581362586,31,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001251000,1760000000001256000,1,75581362586,32,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001311000,1760000000001316000,1,75581362586,33,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001321000,1760000000001326000,1,75581362586,34,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001391000,1760000000001396000,1,75581362586,35,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001411000,1760000000001416000,1,75581362586,36,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001461000,1760000000001466000,1,75581362586,37,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001511000,1760000000001516000,1,75581362586,38,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001531000,1760000000001536000,1,75581362586,39,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001601000,1760000000001606000,1,75581362586,40,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001611000,1760000000001616000,1,75581362586,41,4,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1760000000001711000,1760000000001716000,1,75581362586,42,4,0,NULL);
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
INSERT INTO NVTX_EVENTS VALUES(1759999999999999000,NULL,75,NULL,NULL,NULL,'smtop-test',75581362586,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000000000,1760000000000900000,59,NULL,NULL,4285970688,NULL,75581362586,75581362586,10,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000010000,1760000000000410000,59,NULL,NULL,4285970688,'conv1',75581362586,75581362586,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000420000,1760000000000720000,59,NULL,NULL,4285970688,NULL,75581362586,75581362586,11,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000950000,1760000000002950000,59,NULL,NULL,4285970688,NULL,75581362586,75581362586,12,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001000000,1760000000001700000,59,NULL,NULL,4285970688,'forward',75581362586,75581362586,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001750000,1760000000002850000,59,NULL,NULL,4285970688,NULL,75581362586,75581362586,13,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000500000,NULL,34,NULL,NULL,4285970688,'checkpoint',75581362586,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000002990000,NULL,34,NULL,NULL,4285970688,NULL,75581362586,NULL,14,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
COMMIT;
