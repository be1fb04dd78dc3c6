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
INSERT INTO StringIds VALUES(4,'bias_act_fwd(float *, const float *, int)');
INSERT INTO StringIds VALUES(5,'bias_act_fwd');
INSERT INTO StringIds VALUES(6,'_Z14bias_act_fwdPfPKfi');
INSERT INTO StringIds VALUES(7,'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, at::native::CUDAFunctor_add<float>)');
INSERT INTO StringIds VALUES(8,'vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(9,'inference');
INSERT INTO StringIds VALUES(10,'layer1');
INSERT INTO StringIds VALUES(11,'train_step');
INSERT INTO StringIds VALUES(12,'backward');
INSERT INTO StringIds VALUES(13,'step done');
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
       smMinor                     INTEGER,                               -- Minor multiprocessor version number.
       numaNodeId                  INTEGER                                -- NUMA node ID.
   );
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA A100-SXM4-80GB','0000:19:00.0',1,62914560,150754820096,4800000000000,1980000000,108,NULL,'GPU-0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9',NULL,'GA100',0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,233472,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,8,0,9,0,NULL);
INSERT INTO TARGET_INFO_GPU VALUES(0,1,'NVIDIA H200','0000:19:00.0',1,62914560,150754820096,4800000000000,1980000000,132,NULL,'GPU-6f1c2a0e-3d5b-4a77-9c1e-8b2f0d4e5a61',NULL,'GH100',1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,233472,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,9,0,9,0,NULL);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (
       gpuId                       INTEGER,                               -- GPU ID.
       cudaId                      INTEGER   NOT NULL,                    -- CUDA device ID.
       pid                         INTEGER   NOT NULL,                    -- Process ID.
       uuid                        TEXT,                                  -- Device UUID.
       numMultiprocessors          INTEGER                                -- Number of SMs available on the device.
   );
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(1,0,4303,'GPU-6f1c2a0e-3d5b-4a77-9c1e-8b2f0d4e5a61',132);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
       nullStreamId                INTEGER   NOT NULL,                    -- Stream ID.
       hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
       vmId                        INTEGER   NOT NULL,                    -- VM ID.
       processId                   INTEGER   NOT NULL,                    -- Process ID.
       deviceId                    INTEGER   NOT NULL,                    -- Device ID.
       contextId                   INTEGER   NOT NULL,                    -- Context ID.
       parentContextId             INTEGER,                               -- For green context, this is the parent context id.
       isGreenContext              INTEGER,                               -- Is this a Green Context?
       numMultiprocessors          INTEGER,                               -- For green context, number of SMs allocated.
       numTpcs                     INTEGER,                               -- For green context, number of TPCs allocated.
       tpcMask                     TEXT,                                  -- For green context, comma-separated hex TPC mask values (e.g., '0xf,0x0').
       workqueueResourceId         INTEGER,                               -- For green context, workqueue resource ID.
       workqueueConcurrencyLimit   INTEGER,                               -- For green context, workqueue concurrency limit.
       workqueueSharingScope       INTEGER,                               -- For green context, workqueue sharing scope.
       workqueueChannelCount       INTEGER,                               -- For green context, workqueue channel count captured at green context creation; may not reflect later reassignment, for example after other green contexts are created or destroyed.
       workqueueChannelIds         TEXT                                   -- For green context, comma-separated workqueue channel IDs captured at green context creation; may not reflect later reassignment, for example after other green contexts are created or destroyed.
   );
INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES(7,0,0,4303,0,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
       streamId                    INTEGER   NOT NULL,                    -- Stream ID.
       hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
       vmId                        INTEGER   NOT NULL,                    -- VM ID.
       processId                   INTEGER   NOT NULL,                    -- Process ID.
       contextId                   INTEGER   NOT NULL,                    -- Context ID.
       priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
       flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)
   );
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,4303,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,4303,1,4294967291,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(21,0,0,4303,1,0,1);
CREATE TABLE META_DATA_EXPORT (
       -- information about nsys export process

       name                        TEXT      NOT NULL,                    -- Name of meta-data record
       value                       TEXT                                   -- Value of meta-data record
   );
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.28.1');
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
       -- Nsys event type labels

       id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
       name                        TEXT,                                  -- Enum symbol name.
       label                       TEXT                                   -- Enum human name.
   );
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
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
       sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
       qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.
       qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.
       qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.
       graphId                     INTEGER,                               -- Kernel graph ID.
       clusterX                    INTEGER,                               -- Cluster X dimension.
       clusterY                    INTEGER,                               -- Cluster Y dimension.
       clusterZ                    INTEGER,                               -- Cluster Z dimension.
       clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.
       maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.
       maxActiveClusters           INTEGER,                               -- Maximum active clusters.
       sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.
       tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.
   );
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000000000,1760000000000068000,0,1,NULL,7,1,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,101,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000020000,1760000000000050000,0,1,NULL,13,2,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,102,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000070000,1760000000000138000,0,1,NULL,7,3,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,103,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000120000,1760000000000151000,0,1,NULL,13,4,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,104,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000140000,1760000000000208000,0,1,NULL,7,5,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,105,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000210000,1760000000000278000,0,1,NULL,7,6,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,106,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000220000,1760000000000252000,0,1,NULL,13,7,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,107,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000280000,1760000000000348000,0,1,NULL,7,8,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,108,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000320000,1760000000000350000,0,1,NULL,13,9,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,109,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000350000,1760000000000418000,0,1,NULL,7,10,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,110,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000451000,0,1,NULL,13,11,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,111,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000488000,0,1,NULL,7,12,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,112,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000490000,1760000000000558000,0,1,NULL,7,13,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,113,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000520000,1760000000000552000,0,1,NULL,13,14,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,114,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000560000,1760000000000628000,0,1,NULL,7,15,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,115,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000620000,1760000000000650000,0,1,NULL,13,16,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,116,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000630000,1760000000000698000,0,1,NULL,7,17,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,117,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000700000,1760000000000768000,0,1,NULL,7,18,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,118,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000720000,1760000000000751000,0,1,NULL,13,19,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,119,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000770000,1760000000000838000,0,1,NULL,7,20,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,120,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000820000,1760000000000852000,0,1,NULL,13,21,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,121,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000840000,1760000000000908000,0,1,NULL,7,22,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,122,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000910000,1760000000000978000,0,1,NULL,7,23,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,123,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000920000,1760000000000950000,0,1,NULL,13,24,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,124,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000980000,1760000000001048000,0,1,NULL,7,25,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,125,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001020000,1760000000001051000,0,1,NULL,13,26,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,126,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001050000,1760000000001118000,0,1,NULL,7,27,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,127,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001152000,0,1,NULL,13,28,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,128,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001188000,0,1,NULL,7,29,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,129,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001190000,1760000000001258000,0,1,NULL,7,30,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,130,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001220000,1760000000001250000,0,1,NULL,13,31,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,131,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001260000,1760000000001328000,0,1,NULL,7,32,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,132,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001320000,1760000000001351000,0,1,NULL,13,33,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,133,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001330000,1760000000001398000,0,1,NULL,7,34,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,134,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001400000,1760000000001468000,0,1,NULL,7,35,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,135,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001420000,1760000000001452000,0,1,NULL,13,36,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,136,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001470000,1760000000001538000,0,1,NULL,7,37,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,137,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001520000,1760000000001550000,0,1,NULL,13,38,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,138,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001540000,1760000000001608000,0,1,NULL,7,39,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,139,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001610000,1760000000001678000,0,1,NULL,7,40,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,140,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001620000,1760000000001651000,0,1,NULL,13,41,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,141,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001680000,1760000000001748000,0,1,NULL,7,42,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,142,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001720000,1760000000001752000,0,1,NULL,13,43,72192360448,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,143,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001750000,1760000000001818000,0,1,NULL,7,44,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,144,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001820000,1760000000001850000,0,1,NULL,13,45,72192360448,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,145,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001820000,1760000000001888000,0,1,NULL,7,46,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,146,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001890000,1760000000001958000,0,1,NULL,7,47,72192360448,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,147,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001920000,1760000000001951000,0,1,NULL,13,48,72192360448,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,148,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'[]');
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
       binaryData                  TEXT,                                  -- Binary payload. See docs for format.
       eventId                     INTEGER   NOT NULL   PRIMARY KEY       -- Unique NVTX event row identifier.
   );
INSERT INTO NVTX_EVENTS VALUES(1759999999999999000,NULL,75,NULL,NULL,NULL,'smtop-test',72192364752,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO NVTX_EVENTS VALUES(1760000000000000000,1760000000000900000,59,NULL,NULL,4285970688,NULL,72192364752,72192364752,9,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,2);
INSERT INTO NVTX_EVENTS VALUES(1760000000000010000,1760000000000410000,59,NULL,NULL,4285970688,'conv1',72192364752,72192364752,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,3);
INSERT INTO NVTX_EVENTS VALUES(1760000000000420000,1760000000000720000,59,NULL,NULL,4285970688,NULL,72192364752,72192364752,10,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,4);
INSERT INTO NVTX_EVENTS VALUES(1760000000000950000,1760000000002950000,59,NULL,NULL,4285970688,NULL,72192364752,72192364752,11,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,5);
INSERT INTO NVTX_EVENTS VALUES(1760000000001000000,1760000000001700000,59,NULL,NULL,4285970688,'forward',72192364752,72192364752,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,6);
INSERT INTO NVTX_EVENTS VALUES(1760000000001750000,1760000000002850000,59,NULL,NULL,4285970688,NULL,72192364752,72192364752,12,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,7);
INSERT INTO NVTX_EVENTS VALUES(1760000000000500000,NULL,34,NULL,NULL,4285970688,'checkpoint',72192364752,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,8);
INSERT INTO NVTX_EVENTS VALUES(1760000000002990000,NULL,34,NULL,NULL,4285970688,NULL,72192364752,NULL,13,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,9);
COMMIT;
