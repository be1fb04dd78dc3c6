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
     smMinor                     INTEGER                                -- Minor multiprocessor version number.
 );
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA H200','0000:19:00.0',1,62914560,150754820096,4800000000000,1980000000,132,NULL,'GPU-6f1c2a0e-3d5b-4a77-9c1e-8b2f0d4e5a61',NULL,'GH100',0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,233472,65536,32,NULL,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,9,0,9,0);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
     nullStreamId                INTEGER   NOT NULL,                    -- Stream ID.
     hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
     vmId                        INTEGER   NOT NULL,                    -- VM ID.
     processId                   INTEGER   NOT NULL,                    -- Process ID.
     deviceId                    INTEGER   NOT NULL,                    -- Device ID.
     contextId                   INTEGER   NOT NULL,                    -- Context ID.
     parentContextId             INTEGER,                               -- For green context, this is the parent context id.
     isGreenContext              INTEGER                                -- Is this a Green Context?
 );
INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES(7,0,0,4202,0,1,NULL,NULL);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
     streamId                    INTEGER   NOT NULL,                    -- Stream ID.
     hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
     vmId                        INTEGER   NOT NULL,                    -- VM ID.
     processId                   INTEGER   NOT NULL,                    -- Process ID.
     contextId                   INTEGER   NOT NULL,                    -- Context ID.
     priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
     flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)
 );
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,4202,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,4202,1,4294967291,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(21,0,0,4202,1,0,1);
CREATE TABLE META_DATA_EXPORT (
     -- information about nsys export process

     name                        TEXT      NOT NULL,                    -- Name of meta-data record
     value                       TEXT                                   -- Value of meta-data record
 );
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
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000000000,1760000000000068000,0,1,7,1,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,101,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000020000,1760000000000050000,0,1,13,2,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,102,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000070000,1760000000000138000,0,1,7,3,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,103,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000120000,1760000000000151000,0,1,13,4,70497861632,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,104,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000140000,1760000000000208000,0,1,7,5,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,105,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000210000,1760000000000278000,0,1,7,6,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,106,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000220000,1760000000000252000,0,1,13,7,70497861632,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,107,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000280000,1760000000000348000,0,1,7,8,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,108,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000320000,1760000000000350000,0,1,13,9,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,109,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000350000,1760000000000418000,0,1,7,10,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,110,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000451000,0,1,13,11,70497861632,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,111,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000420000,1760000000000488000,0,1,7,12,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,112,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000490000,1760000000000558000,0,1,7,13,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,113,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000520000,1760000000000552000,0,1,13,14,70497861632,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,114,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000560000,1760000000000628000,0,1,7,15,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,115,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000620000,1760000000000650000,0,1,13,16,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,116,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000630000,1760000000000698000,0,1,7,17,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,117,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000700000,1760000000000768000,0,1,7,18,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,118,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000720000,1760000000000751000,0,1,13,19,70497861632,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,119,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000770000,1760000000000838000,0,1,7,20,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,120,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000820000,1760000000000852000,0,1,13,21,70497861632,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,121,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000840000,1760000000000908000,0,1,7,22,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,122,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000910000,1760000000000978000,0,1,7,23,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,123,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000920000,1760000000000950000,0,1,13,24,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,124,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000000980000,1760000000001048000,0,1,7,25,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,125,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001020000,1760000000001051000,0,1,13,26,70497861632,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,126,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001050000,1760000000001118000,0,1,7,27,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,127,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001152000,0,1,13,28,70497861632,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,128,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001120000,1760000000001188000,0,1,7,29,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,129,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001190000,1760000000001258000,0,1,7,30,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,130,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001220000,1760000000001250000,0,1,13,31,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,131,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001260000,1760000000001328000,0,1,7,32,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,132,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001320000,1760000000001351000,0,1,13,33,70497861632,4,5,6,0,0,72,66,1,1,256,1,1,4096,0,0,0,133,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001330000,1760000000001398000,0,1,7,34,70497861632,1,2,3,0,0,64,264,1,1,256,1,1,0,0,0,0,134,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001420000,1760000000001452000,0,1,13,35,70497861632,7,8,NULL,0,0,80,66,1,1,256,1,1,8192,0,0,0,135,0,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1760000000001520000,1760000000001550000,0,1,13,36,70497861632,1,2,3,0,0,64,66,1,1,256,1,1,0,0,0,0,136,0,NULL,NULL);
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
INSERT INTO NVTX_EVENTS VALUES(1759999999999999000,NULL,75,NULL,NULL,NULL,'smtop-test',70497865835,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000000000,1760000000000900000,59,NULL,NULL,4285970688,NULL,70497865835,70497865835,9,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000010000,1760000000000410000,59,NULL,NULL,4285970688,'conv1',70497865835,70497865835,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000420000,1760000000000720000,59,NULL,NULL,4285970688,NULL,70497865835,70497865835,10,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000950000,1760000000002950000,59,NULL,NULL,4285970688,NULL,70497865835,70497865835,11,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001000000,1760000000001700000,59,NULL,NULL,4285970688,'forward',70497865835,70497865835,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000001750000,1760000000002850000,59,NULL,NULL,4285970688,NULL,70497865835,70497865835,12,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000000500000,NULL,34,NULL,NULL,4285970688,'checkpoint',70497865835,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1760000000002990000,NULL,34,NULL,NULL,4285970688,NULL,70497865835,NULL,13,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
COMMIT;
